import 'reflect-metadata';
import { definitionHash } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { CliAppModule } from './fixtures/cli-app.module';
import { APP, CLI, WORKSPACE, ensureBuilt, killChildren, runAgenttool, tempDir } from './helpers';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

const NAMES = ['echo', 'count', 'ask', 'visit', 'fail', 'note', 'wait', 'stall'];

// The hashes through the public API, for the same module the built command loads.
async function expectedHashes(): Promise<Record<string, string>> {
  const app = await ToolApp.create(CliAppModule);
  try {
    return Object.fromEntries([...app.tools].map((t) => [t.name, definitionHash(t)]));
  } finally {
    await app.close();
  }
}

interface Listed {
  hash: string;
  definition: { name: string; type: string };
  properties: {
    sequential: boolean;
    resource: string;
    strict: boolean;
    closer: boolean;
    annotations: Record<string, unknown> | null;
    confined: { confined: boolean; by: string };
  };
}

describe('agenttool list', () => {
  it('prints a table of a module file: name, definition hash, properties, annotations', async () => {
    const ran = await runAgenttool(['list', APP]);
    expect(ran.code).toBe(0);
    const [header, ...rows] = ran.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME +DEFINITION HASH +PROPERTIES +ANNOTATIONS$/);
    const hashes = await expectedHashes();
    const byName = Object.fromEntries(rows.map((row) => [row.split(/ +/)[0], row.split(/ {2,}/)]));
    expect(Object.keys(byName)).toEqual(NAMES);
    for (const name of NAMES) expect(byName[name]?.[1]).toBe(hashes[name]);
    expect(byName['echo']?.slice(2)).toEqual(['-', 'read-only, closed world, title "Echo"']);
    expect(byName['fail']?.slice(2)).toEqual(['sequential', 'unstated']);
    expect(byName['note']?.slice(2)).toEqual(['strict', 'unstated']);
    expect(byName['wait']?.slice(2)).toEqual(['resource=fixture:journal closer', 'unstated']);
  });

  it('prints the definitions, hashes and properties as JSON with --json', async () => {
    const ran = await runAgenttool(['list', APP, '--json']);
    expect(ran.code).toBe(0);
    const listed = JSON.parse(ran.stdout) as Listed[];
    expect(listed.map((t) => t.definition.name)).toEqual(NAMES);
    const echo = listed[0]!;
    expect(echo.definition).toEqual({
      type: 'function',
      name: 'echo',
      description: 'Echo the text.',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', description: 'The text to echo back' } },
        required: ['text'],
      },
    });
    expect(listed[5]!.definition).toMatchObject({ name: 'note', strict: true });
    expect(echo.properties.annotations).toEqual({
      title: 'Echo',
      readOnly: true,
      destructive: false,
      idempotent: false,
      openWorld: false,
    });
    expect(listed[6]!.properties).toEqual({
      sequential: false,
      resource: 'fixture:journal',
      strict: false,
      closer: true,
      annotations: null,
      confined: { confined: false, by: '' },
    });
  });

  it('shows where calls run: the workspace shell confined by its sandbox, the file tools not', async () => {
    const env = { WORKSPACE_ROOT: tempDir() };
    const table = await runAgenttool(['list', WORKSPACE], { env });
    expect(table.code).toBe(0);
    const bashRow = table.stdout.split('\n').find((row) => row.startsWith('bash '));
    expect(bashRow).toContain('resource=shell:session confined=bubblewrap');
    const json = await runAgenttool(['list', WORKSPACE, '--json'], { env });
    const listed = JSON.parse(json.stdout) as Listed[];
    expect(
      Object.fromEntries(listed.map((t) => [t.definition.name, t.properties.confined])),
    ).toEqual({
      bash: { confined: true, by: 'bubblewrap' },
      restart: { confined: false, by: '' },
      read_file: { confined: false, by: '' },
      write_file: { confined: false, by: '' },
      edit_file: { confined: false, by: '' },
      append_file: { confined: false, by: '' },
    });
  });

  it('lists an MCP server over stdio with the same definition hashes, but for strict (MCP does not carry it)', async () => {
    const ran = await runAgenttool([
      'list',
      '--json',
      '--stdio',
      `"${process.execPath}" "${CLI}" serve "${APP}"`,
    ]);
    expect(ran.code).toBe(0);
    const listed = JSON.parse(ran.stdout) as Listed[];
    const { note: strictHash, ...hashes } = await expectedHashes();
    const { note: remoteNote, ...remoteHashes } = Object.fromEntries(
      listed.map((t) => [t.definition.name, t.hash]),
    );
    expect(remoteHashes).toEqual(hashes);
    expect(remoteNote).not.toBe(strictHash);
    expect(listed[5]!.properties.strict).toBe(false);
    // MCP carries annotations, not the executor's properties.
    expect(listed[0]!.properties.annotations).toMatchObject({ readOnly: true, title: 'Echo' });
    expect(listed[6]!.properties.resource).toBe('');
  });

  it('shows the schema of structured results where a tool declares one, here and over MCP', async () => {
    const app = APP.replace('cli-app.module.js', 'output-app.module.js');
    const weather = {
      type: 'object',
      properties: {
        celsius: { type: 'number', description: 'Degrees Celsius' },
        sky: { type: 'string', description: 'The sky' },
      },
      required: ['celsius', 'sky'],
    };
    const local = await runAgenttool(['list', app, '--json']);
    expect(local.code).toBe(0);
    const listed = JSON.parse(local.stdout) as (Listed & { outputSchema: unknown })[];
    expect(listed.map((t) => [t.definition.name, t.outputSchema])).toEqual([
      ['weather', weather],
      ['plain', null],
    ]);
    const table = await runAgenttool(['list', app]);
    const rows = table.stdout.trimEnd().split('\n').slice(1);
    expect(rows.map((row) => row.split(/ {2,}/)[2])).toEqual(['output', '-']);
    const remote = await runAgenttool([
      'list',
      '--json',
      '--stdio',
      `"${process.execPath}" "${CLI}" serve "${app}"`,
    ]);
    expect(remote.code).toBe(0);
    const served = JSON.parse(remote.stdout) as { outputSchema: unknown }[];
    expect(served.map((t) => t.outputSchema)).toEqual([weather, null]);
  });

  it('needs exactly one target', async () => {
    const none = await runAgenttool(['list']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'agenttool: no target; give a module file, --stdio "command args" or --http URL\n',
    );
    const two = await runAgenttool(['list', APP, '--stdio', 'node x.js']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('more than one target');
    const both = await runAgenttool([
      'list',
      '--stdio',
      'node x.js',
      '--http',
      'http://127.0.0.1:1/mcp',
    ]);
    expect(both.code).toBe(2);
  });

  it('exits 2 for a URL that is not one and 3 for a server that is not there', async () => {
    const bad = await runAgenttool(['list', '--http', 'not a url']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--http "not a url" is not a URL');
    const ftp = await runAgenttool(['list', '--http', 'ftp://127.0.0.1/mcp']);
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toContain('--http "ftp://127.0.0.1/mcp" is not an http or https URL');
    const absent = await runAgenttool(['list', '--http', 'http://127.0.0.1:9/mcp']);
    expect(absent.code).toBe(3);
    expect(absent.stderr).toMatch(/^agenttool: http:\/\/127\.0\.0\.1:9\/mcp: mcp: connect: /);
    const unterminated = await runAgenttool(['list', '--stdio', 'node "x.js']);
    expect(unterminated.code).toBe(2);
    expect(unterminated.stderr).toContain('unterminated " quote');
  });
});
