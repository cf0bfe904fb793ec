/**
 * `agenttool install`: the server's entry written into each client's configuration
 * beside what the file already holds, replaced on a second run (with a backup), and a
 * command that starts the server from any folder, as a client does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { APP, ensureBuilt, killChildren, runAgenttool, tempDir } from './helpers';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

interface Entry {
  type?: string;
  command: string;
  args: string[];
}

/** Each client with a configuration that already holds another server, as it writes one. */
const CLIENTS = [
  {
    client: 'claude-desktop',
    key: 'mcpServers',
    type: undefined,
    before:
      '{\n  "globalShortcut": "",\n  "mcpServers": {\n    "other": { "command": "other-server" }\n  }\n}\n',
  },
  {
    client: 'cursor',
    key: 'mcpServers',
    type: undefined,
    before: '{ "mcpServers": { "other": { "command": "npx", "args": ["-y", "other"] } } }',
  },
  {
    client: 'vscode',
    key: 'servers',
    type: 'stdio',
    before:
      '// Servers for this workspace\n{\n  "servers": {\n    // the one we had\n    "other": { "type": "stdio", "command": "other-server" },\n  },\n  "inputs": []\n}\n',
  },
  {
    client: 'claude-code',
    key: 'mcpServers',
    type: 'stdio',
    before:
      '{\n  "mcpServers": {\n    "other": { "type": "stdio", "command": "other-server" }\n  }\n}\n',
  },
] as const;

/** The JSON of a file written with comments and trailing commas (VS Code's). */
function jsonOf(text: string): Record<string, Record<string, Entry>> {
  const plain = text.replace(/^\s*\/\/.*$/gm, '').replace(/,(\s*[}\]])/g, '$1');
  return JSON.parse(plain) as Record<string, Record<string, Entry>>;
}

/** Starts the entry's command in `cwd`, as a client would, and lists its tools. */
async function toolsOf(entry: Entry, cwd: string): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    cwd,
    env: { PATH: '/usr/bin:/bin' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'install-test', version: '1' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe('agenttool install', () => {
  it.concurrent.each(CLIENTS)(
    '$client: adds the server beside the others, replaces it on a second run, and the command starts it from any folder',
    async ({ client, key, type, before }) => {
      const project = tempDir();
      const file = join(project, 'config.json');
      writeFileSync(file, before);
      const first = await runAgenttool(
        ['install', client, '--config-file', file, '--name', 'greeter', 'serve', APP],
        { cwd: project },
      );
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`wrote the server "greeter" to ${file} (${key})`);
      const written = jsonOf(readFileSync(file, 'utf8'));
      expect(Object.keys(written[key]!)).toEqual(['other', 'greeter']);
      expect(written[key]!['other']).toEqual(jsonOf(before)[key]!['other']);
      const entry = written[key]!['greeter']!;
      expect(entry.type).toBe(type);
      expect(entry.args.slice(-2)).toEqual(['serve', APP]);
      expect(readFileSync(`${file}.bak`, 'utf8')).toBe(before);
      if (client === 'vscode') {
        // Its comments and the rest of the file stay.
        const text = readFileSync(file, 'utf8');
        expect(text).toContain('// Servers for this workspace');
        expect(text).toContain('// the one we had');
        expect(text).toContain('"inputs": []');
      }

      // A second run with a relative path: one entry, replaced; the backup is the first run's.
      const afterFirst = readFileSync(file, 'utf8');
      const second = await runAgenttool(
        [
          'install',
          client,
          '--config-file',
          'config.json',
          '--name',
          'greeter',
          'serve',
          APP,
          '--record',
          'records.jsonl',
        ],
        { cwd: project },
      );
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('replacing the entry of that name');
      const replaced = jsonOf(readFileSync(file, 'utf8'));
      expect(Object.keys(replaced[key]!)).toEqual(['other', 'greeter']);
      expect(replaced[key]!['greeter']!.args.slice(-4)).toEqual([
        'serve',
        APP,
        '--record',
        join(project, 'records.jsonl'),
      ]);
      expect(readFileSync(`${file}.bak`, 'utf8')).toBe(afterFirst);

      // The client starts it in a folder of its own.
      expect(await toolsOf(replaced[key]!['greeter']!, tempDir())).toContain('echo');
    },
    60_000,
  );

  it('a wrong word before the file: the message names that word and what belongs there', async () => {
    const project = tempDir();
    writeFileSync(join(project, 'app.js'), 'module.exports = {};\n');
    const refused = async (words: string[]): Promise<string> => {
      const ran = await runAgenttool(['install', 'cursor', '--dry-run', ...words], {
        cwd: project,
      });
      expect(ran.code).toBe(2);
      expect(ran.stdout).toBe('');
      return ran.stderr;
    };
    expect(await refused(['bogus', 'app.js'])).toBe(
      'agenttool: install: "bogus" is not what to serve: give serve <module-file> or workspace [dir] after the client, e.g. serve app.js\n',
    );
    expect(await refused(['sreve', '../app.js'])).toBe(
      'agenttool: install: "sreve" is not what to serve: give serve <module-file> or workspace [dir] after the client (did you mean serve?), e.g. serve ../app.js\n',
    );
    expect(await refused(['worksapce', '.', '--allow-network', 'example.com'])).toBe(
      'agenttool: install: "worksapce" is not what to serve: give serve <module-file> or workspace [dir] after the client (did you mean workspace?), e.g. workspace .\n',
    );
    // The file first, then a word too many: that word is the one named.
    expect(await refused(['app.js', 'more.js'])).toBe(
      'agenttool: install: unexpected "more.js"; serve takes one module file\n',
    );
  });
});
