import { fileURLToPath } from 'node:url';
import { defineConfig, type DefaultTheme } from 'vitepress';
import { withMermaid } from 'vitepress-plugin-mermaid';
import apiSidebar from '../api/typedoc-sidebar.json';

// The site `npm run docs:build` builds from docs/: the guides, and the API reference that
// TypeDoc writes into docs/api from the TSDoc (so it cannot drift from the code).
// Mermaid draws the diagrams (the layers on the contributor page).
const API_DIR = fileURLToPath(new URL('../api/', import.meta.url));
// A page's title: its h1, VitePress's anchor link after it.
const TITLE = /<h1[^>]*>(.*?)<a[^>]*href="#[^"]*"[^>]*>.*?<\/a><\/h1>/i;

/**
 * The section the search indexes for a page of docs/api: its title alone ("Class:
 * ToolApp", "Function: serveTools()"), leading to the page. TypeDoc's pages are most of the
 * site: their full text made the search index over 1 MB, and their members' headings still
 * half a megabyte, which the search box waits for before it shows anything. The guides
 * explain the same things in prose, and are indexed whole.
 */
function apiTitle(html: string): { anchor: string; titles: string[]; text: string }[] {
  const title = TITLE.exec(html)?.[1]
    ?.replace(/<[^>]*>/g, '')
    .trim();
  return title ? [{ anchor: '', titles: [title], text: '' }] : [];
}

const search: DefaultTheme.Config['search'] = {
  provider: 'local',
  options: {
    miniSearch: {
      // undefined: VitePress splits the page itself (the guides, indexed whole).
      _splitIntoSections: (path, html) =>
        (path.startsWith(API_DIR) ? apiTitle(html) : undefined) as never,
    },
  },
};

/**
 * The API reference's sidebars: one per entry (agenttool, agenttool/mcp, ...), with that
 * entry's members under the list of entries. One sidebar of every member made each of the
 * 500-odd pages carry all of them (about 260 KB of HTML a page), which took 60 s of the
 * site's build where the sidebars of one entry take under 40 s.
 */
const apiEntries = apiSidebar as DefaultTheme.SidebarItem[];
const entryList: DefaultTheme.SidebarItem = {
  text: 'API reference',
  link: '/api/',
  items: apiEntries.map(({ text, link }) => ({ text, link })),
};
const apiSidebars: DefaultTheme.SidebarMulti = {
  '/api/': [entryList],
  ...Object.fromEntries(
    apiEntries.map((entry) => [
      entry.link ?? '',
      [entryList, { text: entry.text, link: entry.link, items: entry.items }],
    ]),
  ),
};

export default withMermaid(
  defineConfig({
    title: 'agenttool',
    description: 'Decorator- and class-based agent tools for TypeScript',
    cleanUrls: true,
    // A dead link to a page fails the build; scripts/check-docs-links.js checks anchors.
    ignoreDeadLinks: false,
    head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
    themeConfig: {
      nav: [
        { text: 'Guides', link: '/getting-started' },
        { text: 'Troubleshooting', link: '/troubleshooting' },
        { text: 'API', link: '/api/' },
      ],
      sidebar: {
        ...apiSidebars,
        '/': [
          {
            text: 'Start here',
            items: [
              { text: 'Getting started', link: '/getting-started' },
              { text: 'A fast development loop', link: '/typescript-runners' },
            ],
          },
          {
            text: 'Writing tools',
            items: [
              { text: 'Tools and decorators', link: '/tools' },
              { text: 'The executor and its batch rules', link: '/executor' },
              { text: 'Modules and dependency injection', link: '/modules-and-di' },
              { text: 'Interceptors', link: '/interceptors' },
              { text: 'Long-running tasks', link: '/tasks' },
              { text: 'Testing your tools', link: '/testing' },
            ],
          },
          {
            text: 'MCP',
            items: [
              { text: 'Serving over MCP', link: '/serving' },
              { text: 'Prompts and resources', link: '/prompts-and-resources' },
              { text: 'Consuming MCP servers', link: '/client' },
              { text: 'One server made of many', link: '/composition' },
            ],
          },
          {
            text: 'The shell and the workspace',
            items: [
              { text: 'The shell and its sandbox', link: '/sandbox' },
              { text: 'The workspace', link: '/workspace' },
            ],
          },
          {
            text: 'Where your app already is',
            items: [
              { text: 'NestJS, the AI SDK and OpenAI Agents', link: '/frameworks' },
              { text: 'The command line', link: '/cli' },
            ],
          },
          {
            text: 'Running it',
            items: [
              { text: 'Deployment', link: '/deploy' },
              { text: 'Traces and metrics (OpenTelemetry)', link: '/telemetry' },
              { text: 'Troubleshooting', link: '/troubleshooting' },
              { text: 'Benchmarks', link: '/benchmarks' },
            ],
          },
          {
            text: 'The contract',
            items: [
              { text: 'The contract and the Go binding', link: '/contract' },
              { text: 'Interop with the Go binding', link: '/go-interop' },
            ],
          },
          {
            text: 'This repository',
            items: [
              { text: 'Contributing', link: '/contributing' },
              { text: 'API reference', link: '/api/' },
            ],
          },
        ],
      },
      search,
    },
  }),
);
