// The default theme, with one addition: the search box says "Searching…" while it has a
// query but nothing to show yet (its index still loading, or the query's results not in),
// where VitePress's own box stays blank.
import DefaultTheme from 'vitepress/theme';
import './search-loading.css';

export default DefaultTheme;
