// `agenttool list` with prompts, resources and templates; `get-prompt` and
// `read-resource`, on a module file (its app served in memory) and on a server.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FIXTURES,
  ensureBuilt,
  killChildren,
  runAgenttool,
  type Running,
  startAgenttool,
  tempDir,
} from './helpers';

const APP = join(FIXTURES, 'primitives-app.module.js');
const TOOLS_ONLY = join(FIXTURES, 'output-app.module.js');

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

const REVIEW_MESSAGES =
  '[user]\nReview: x = 1\n\n[user]\n[image image/png, 4 bytes]\n\n[assistant]\nLooking.\n';

describe('agenttool list: prompts, resources and templates', () => {
  it('shows them after the tools in the table, and one kind as JSON with --only', async () => {
    const [table, prompts] = await Promise.all([
      runAgenttool(['list', APP]),
      runAgenttool(['list', APP, '--only', 'prompts', '--json']),
    ]);
    expect(table.code).toBe(0);
    const blocks = table.stdout.trimEnd().split('\n\n');
    expect(blocks).toHaveLength(4);
    expect(blocks[0]).toMatch(/^NAME +DEFINITION HASH +PROPERTIES +ANNOTATIONS\nping +sha256:/);
    expect(blocks.slice(1)).toEqual([
      [
        'PROMPT  ARGUMENTS        DESCRIPTION',
        'review  code, language?  Reviews code',
        'broken  -                Fails on purpose',
      ].join('\n'),
      [
        'RESOURCE       NAME    MIME TYPE',
        'docs://readme  readme  text/markdown',
        'docs://logo    logo    image/png',
      ].join('\n'),
      [
        'TEMPLATE              NAME     MIME TYPE',
        'users://{id}/profile  profile  application/json',
      ].join('\n'),
    ]);
    expect(JSON.parse(prompts.stdout)).toEqual([
      {
        name: 'review',
        description: 'Reviews code',
        arguments: [
          { name: 'code', description: 'The code to review', required: true },
          { name: 'language', description: 'The language', required: false },
        ],
      },
      { name: 'broken', description: 'Fails on purpose' },
    ]);
  });
});

describe('agenttool get-prompt', () => {
  it('prints the messages, and refuses an unknown prompt, a missing argument, a failing prompt', async () => {
    const [text, missing, unknown, broken] = await Promise.all([
      runAgenttool(['prompt', APP, 'review', '{"code": "x = 1"}']),
      runAgenttool(['get-prompt', APP, 'review']),
      runAgenttool(['get-prompt', APP, 'reviw']),
      runAgenttool(['get-prompt', APP, 'broken']),
    ]);
    expect([text.code, text.stdout, text.stderr]).toEqual([0, REVIEW_MESSAGES, '']);
    expect([missing.code, missing.stderr]).toEqual([
      2,
      `agenttool: prompt review needs the argument code (The code to review); give the arguments as one JSON object, e.g. '{"code":"..."}'\n`,
    ]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      'agenttool: no prompt named "reviw" in module PrimitivesAppModule; did you mean review?\n',
    ]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^agenttool: .*prompts\/get "broken".*the prompt broke\n$/);
  });
});

describe('agenttool read-resource', () => {
  it('prints text as is, summarizes bytes unless --output, reads templates, refuses unknown URIs', async () => {
    const file = join(tempDir(), 'logo.png');
    const [readme, logo, saved, profile, unknown] = await Promise.all([
      runAgenttool(['read-resource', APP, 'docs://readme']),
      runAgenttool(['read', APP, 'docs://logo']),
      runAgenttool(['read-resource', APP, 'docs://logo', '--output', file]),
      runAgenttool(['read-resource', APP, 'users://ada/profile', '--json']),
      runAgenttool(['read-resource', APP, 'docs://nope']),
    ]);
    expect([readme.code, readme.stdout]).toEqual([0, '# Hello\n']);
    expect([logo.code, logo.stdout]).toEqual([
      0,
      '[docs://logo, image/png, 6 bytes] (--output <file> writes it)\n',
    ]);
    expect([saved.code, saved.stdout]).toEqual([0, '']);
    expect(saved.stderr).toBe(`agenttool: wrote [docs://logo, image/png, 6 bytes] to ${file}\n`);
    expect([...readFileSync(file)]).toEqual([137, 80, 78, 71, 13, 10]);
    expect(profile.code).toBe(0);
    expect(JSON.parse(profile.stdout)).toEqual({
      contents: [
        { uri: 'users://ada/profile', mimeType: 'application/json', text: '{"id":"ada"}' },
      ],
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('resources/read "docs://nope"');
    expect(unknown.stderr).toContain('`agenttool list` shows the resources and templates');
  });

  it('says a module without resources has none', async () => {
    const ran = await runAgenttool(['read-resource', TOOLS_ONLY, 'docs://readme']);
    expect([ran.code, ran.stderr]).toEqual([
      2,
      'agenttool: module OutputAppModule has no resources\n',
    ]);
  });
});

describe('on a server', () => {
  let servers: Running[] = [];
  afterEach(async () => {
    for (const server of servers) server.process.kill('SIGTERM');
    await Promise.all(servers.map((server) => server.done));
    servers = [];
  });

  it('lists, gets and reads over MCP as from the module file; a server without them lists none', async () => {
    const served = startAgenttool(['serve', APP, '--http', '0']);
    const toolsOnly = startAgenttool(['serve', TOOLS_ONLY, '--http', '0']);
    servers = [served, toolsOnly];
    const at = /at (http:\S+)\n/;
    const [[, url], [, plain]] = await Promise.all([
      served.waitForStderr(at),
      toolsOnly.waitForStderr(at),
    ]);
    const [templates, prompt, readme, none] = await Promise.all([
      runAgenttool(['list', '--http', url!, '--only', 'templates', '--json']),
      runAgenttool([
        'get-prompt',
        '--http',
        url!,
        'review',
        '{"code": "x", "language": "go"}',
        '--json',
      ]),
      runAgenttool(['read-resource', '--http', url!, 'docs://readme']),
      runAgenttool(['list', '--http', plain!]),
    ]);
    expect(JSON.parse(templates.stdout)).toEqual([
      { uriTemplate: 'users://{id}/profile', name: 'profile', mimeType: 'application/json' },
    ]);
    expect(prompt.code).toBe(0);
    expect(JSON.parse(prompt.stdout)).toMatchObject({
      description: 'a review of go code',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Review: x' } },
        { role: 'user', content: { type: 'image', data: 'iVBORw==', mimeType: 'image/png' } },
        { role: 'assistant', content: { type: 'text', text: 'Looking.' } },
      ],
    });
    expect([readme.code, readme.stdout]).toEqual([0, '# Hello\n']);
    // A server without prompts or resources: the tools' table alone.
    expect(none.code).toBe(0);
    expect(
      none.stdout
        .trimEnd()
        .split('\n')
        .map((row) => row.split(/ +/)[0]),
    ).toEqual(['NAME', 'weather', 'plain']);
  });
});
