// Checks the built documentation site (docs/.vitepress/dist) for dead links: every link
// to a page of the site must reach a page that exists, and every #anchor an element with
// that id on the page it names. VitePress checks the pages itself while it builds; this
// adds the anchors. Exits 1 and lists each dead link. Another built site's folder may be
// given as the argument.
'use strict';
const { readFileSync, readdirSync, existsSync } = require('node:fs');
const { join, relative, dirname, resolve } = require('node:path');

const DIST = resolve(process.argv[2] ?? join(__dirname, '..', 'docs', '.vitepress', 'dist'));

function pages(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : pages(full);
    return entry.name.endsWith('.html') ? [full] : [];
  });
}

const decode = (text) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

const ids = new Map();
function idsOf(file) {
  if (!ids.has(file)) {
    const html = readFileSync(file, 'utf8');
    ids.set(
      file,
      new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((m) => decodeURIComponent(decode(m[1])))),
    );
  }
  return ids.get(file);
}

/** The built file a site path leads to, or undefined. */
function target(fromFile, path) {
  const base = path.startsWith('/') ? join(DIST, path) : resolve(dirname(fromFile), path);
  for (const candidate of [base, `${base}.html`, join(base, 'index.html')]) {
    if (existsSync(candidate) && candidate.endsWith('.html')) return candidate;
  }
  return undefined;
}

if (!existsSync(DIST)) {
  console.error('check-docs-links: build the site first (npm run docs:build)');
  process.exit(2);
}
const dead = [];
for (const file of pages(DIST)) {
  const html = readFileSync(file, 'utf8');
  for (const match of html.matchAll(/<a\s[^>]*href="([^"]*)"/g)) {
    const href = decode(match[1]);
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue;
    const [path, anchor] = href.split('#', 2);
    const page = path === '' ? file : target(file, path);
    if (page === undefined) {
      dead.push(`${relative(DIST, file)}: ${href} (no such page)`);
      continue;
    }
    if (anchor !== undefined && anchor !== '' && !idsOf(page).has(decodeURIComponent(anchor))) {
      dead.push(`${relative(DIST, file)}: ${href} (no #${anchor} on ${relative(DIST, page)})`);
    }
  }
}
if (dead.length > 0) {
  console.error(`check-docs-links: ${dead.length} dead link(s):\n  ${dead.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-docs-links: every link of ${pages(DIST).length} pages reaches its target`);
