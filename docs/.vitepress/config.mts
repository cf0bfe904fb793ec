import { defineConfig } from 'vitepress';
import apiSidebar from '../api/typedoc-sidebar.json';

// The site `npm run docs:build` builds from docs/: the guides, and the API reference that
// TypeDoc writes into docs/api from the TSDoc (so it cannot drift from the code).
export default defineConfig({
  title: 'agenttool',
  description: 'Decorator- and class-based agent tools for TypeScript',
  cleanUrls: true,
  // A dead link to a page fails the build; scripts/check-docs-links.js checks anchors.
  ignoreDeadLinks: false,
  themeConfig: {
    nav: [
      { text: 'Guides', link: '/sandbox' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: {
      '/api/': [{ text: 'API reference', items: apiSidebar }],
      '/': [
        {
          text: 'Guides',
          items: [
            { text: 'The shell and its sandbox', link: '/sandbox' },
            { text: 'The workspace', link: '/workspace' },
            { text: 'Modules and dependency injection', link: '/modules-and-di' },
            { text: 'Deployment', link: '/deploy' },
            { text: 'Traces and metrics (OpenTelemetry)', link: '/telemetry' },
            { text: 'Interop with the Go binding', link: '/go-interop' },
          ],
        },
      ],
    },
    search: { provider: 'local' },
  },
});
