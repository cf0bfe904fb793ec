/**
 * The dead-link check that `npm run docs:build` ends with (scripts/check-docs-links.js),
 * on a small built site: links to pages and anchors that exist pass; a link to a page
 * that does not, or to an anchor its page lacks, fails the check and is named.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '../../scripts/check-docs-links.js');

function check(site: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, site], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), out: stdout + stderr });
    });
  });
}

let site: string;

beforeEach(() => {
  site = mkdtempSync(join(tmpdir(), 'docs-links-'));
  mkdirSync(join(site, 'guide'));
  writeFileSync(
    join(site, 'index.html'),
    '<h1 id="top">Home</h1><a href="/guide/shell.html#the-sandbox">guide</a><a href="#top">up</a><a href="https://example.com/x#y">out</a>',
  );
  writeFileSync(
    join(site, 'guide', 'shell.html'),
    '<h2 id="the-sandbox">The sandbox</h2><a href="../index">home</a>',
  );
});

afterEach(() => rmSync(site, { recursive: true, force: true }));

describe('the docs link check', () => {
  it('passes a site whose every link reaches its page and anchor', async () => {
    expect(await check(site)).toEqual({
      code: 0,
      out: expect.stringContaining('every link of 2 pages'),
    });
  });

  it('fails on a link to a page that does not exist, naming it', async () => {
    writeFileSync(join(site, 'broken.html'), '<a href="/guide/missing.html">gone</a>');
    const result = await check(site);
    expect(result.code).toBe(1);
    expect(result.out).toContain('broken.html: /guide/missing.html (no such page)');
  });

  it('fails on an anchor its page lacks, naming both', async () => {
    writeFileSync(join(site, 'broken.html'), '<a href="guide/shell.html#no-such-heading">gone</a>');
    const result = await check(site);
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      'broken.html: guide/shell.html#no-such-heading (no #no-such-heading on guide/shell.html)',
    );
  });
});
