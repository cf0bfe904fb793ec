/**
 * `agenttool install`'s parts, in process: where each client's configuration is on each
 * platform and scope, the arguments made absolute, and what is refused (the file left
 * as it was). test/cli/install.test.ts runs the built command and the written servers.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { install, type InstallOptions } from '../../src/cli/install';
import { CLIENT_SPECS, type Place } from '../../src/cli/install-clients';

const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agenttool-install-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const LAUNCH = { command: '/opt/node/bin/node', args: ['/opt/agenttool/dist/pkg/agenttool.js'] };

/** Runs install in `cwd` with a home of its own; returns what it printed. */
function run(cwd: string, home: string, options: Partial<InstallOptions>): string {
  let printed = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      printed += chunk.toString();
      done();
    },
  });
  install({
    client: 'cursor',
    words: [],
    cwd,
    place: { platform: 'linux', home, env: {}, projectDir: cwd },
    launcher: () => LAUNCH,
    out,
    ...options,
  });
  return printed;
}

function at(file: string, path: readonly string[]): unknown {
  let value: unknown = JSON.parse(readFileSync(file, 'utf8'));
  for (const step of path) value = (value as Record<string, unknown>)[step];
  return value;
}

describe('where each client keeps its servers', () => {
  const home = '/home/ada';
  const place = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv = {}): Place => ({
    platform,
    home,
    env,
    projectDir: '/work/site',
  });

  it.each([
    [
      'claude-desktop',
      'user',
      'darwin',
      {},
      '/home/ada/Library/Application Support/Claude/claude_desktop_config.json',
    ],
    ['claude-desktop', 'user', 'linux', {}, '/home/ada/.config/Claude/claude_desktop_config.json'],
    [
      'claude-desktop',
      'user',
      'linux',
      { XDG_CONFIG_HOME: '/xdg' },
      '/xdg/Claude/claude_desktop_config.json',
    ],
    ['cursor', 'user', 'linux', {}, '/home/ada/.cursor/mcp.json'],
    ['cursor', 'project', 'linux', {}, '/work/site/.cursor/mcp.json'],
    ['vscode', 'user', 'darwin', {}, '/home/ada/Library/Application Support/Code/User/mcp.json'],
    ['vscode', 'user', 'linux', {}, '/home/ada/.config/Code/User/mcp.json'],
    ['vscode', 'project', 'linux', {}, '/work/site/.vscode/mcp.json'],
    ['claude-code', 'project', 'linux', {}, '/work/site/.mcp.json'],
    ['claude-code', 'user', 'linux', {}, '/home/ada/.claude.json'],
    ['claude-code', 'local', 'linux', {}, '/home/ada/.claude.json'],
  ] as const)('%s, %s scope, on %s %j: %s', (client, scope, platform, env, file) => {
    expect(CLIENT_SPECS[client].file(scope, place(platform, env))).toBe(file);
  });

  it('on Windows, under %APPDATA%', () => {
    const windows: Place = { ...place('win32', { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }) };
    expect(CLIENT_SPECS['claude-desktop'].file('user', windows)).toContain('Claude');
    expect(CLIENT_SPECS['claude-desktop'].file('user', windows)).toMatch(
      /^C:\\Users\\ada\\AppData\\Roaming.Claude.claude_desktop_config\.json$/,
    );
  });

  it("puts Claude Code's local entry under the project in ~/.claude.json", () => {
    expect(CLIENT_SPECS['claude-code'].path('local', 'greeter', place('linux'))).toEqual([
      'projects',
      '/work/site',
      'mcpServers',
      'greeter',
    ]);
  });
});

describe('the entry written', () => {
  it('is the launcher with serve and the module file, absolute, named after the file', () => {
    const project = temp();
    mkdirSync(join(project, 'dist'));
    writeFileSync(join(project, 'dist', 'greet.module.js'), '');
    const home = temp();
    run(project, home, { client: 'claude-code', words: ['dist/greet.module.js#Greeter'] });
    expect(at(join(project, '.mcp.json'), ['mcpServers', 'greet'])).toEqual({
      type: 'stdio',
      command: LAUNCH.command,
      args: [...LAUNCH.args, 'serve', join(project, 'dist', 'greet.module.js#Greeter')],
    });
  });

  it('takes a --config of MCP servers, with or without a module file, its path absolute', () => {
    const project = temp();
    writeFileSync(join(project, 'app.js'), '');
    writeFileSync(join(project, 'servers.json'), '{"mcpServers": {}}');
    const home = temp();
    run(project, home, {
      client: 'claude-code',
      words: ['serve', 'app.js', '--config', 'servers.json'],
    });
    expect(at(join(project, '.mcp.json'), ['mcpServers', 'app', 'args'])).toEqual([
      ...LAUNCH.args,
      'serve',
      join(project, 'app.js'),
      '--config',
      join(project, 'servers.json'),
    ]);
    run(project, home, { client: 'claude-code', words: ['serve', '--config', 'servers.json'] });
    expect(at(join(project, '.mcp.json'), ['mcpServers', 'servers', 'args'])).toEqual([
      ...LAUNCH.args,
      'serve',
      '--config',
      join(project, 'servers.json'),
    ]);
  });

  it('keeps a user entry and a local one of Claude Code side by side in one file', () => {
    const project = temp();
    writeFileSync(join(project, 'app.js'), '');
    const home = temp();
    writeFileSync(join(home, '.claude.json'), '{"numStartups": 3, "projects": {}}');
    run(project, home, { client: 'claude-code', scope: 'user', words: ['serve', 'app.js'] });
    run(project, home, { client: 'claude-code', scope: 'local', words: ['serve', 'app.js'] });
    const file = join(home, '.claude.json');
    expect(at(file, ['numStartups'])).toBe(3);
    expect(at(file, ['mcpServers', 'app'])).toBeDefined();
    expect(at(file, ['projects', project, 'mcpServers', 'app'])).toBeDefined();
  });

  it('prints only, with --dry-run', () => {
    const project = temp();
    mkdirSync(join(project, 'site'));
    const home = temp();
    const printed = run(project, home, {
      dryRun: true,
      words: [
        'workspace',
        'site',
        '--allow-write',
        'out',
        '--allow-network',
        'a.example',
        'b.example',
      ],
    });
    expect(printed).toContain(
      `would write the server "workspace" to ${join(home, '.cursor', 'mcp.json')}`,
    );
    const json = JSON.parse(printed.slice(printed.indexOf('{'))) as { args: string[] };
    expect(json.args).toEqual([
      ...LAUNCH.args,
      'workspace',
      join(project, 'site'),
      '--allow-write',
      join(project, 'out'),
      '--allow-network',
      'a.example',
      'b.example',
    ]);
    expect(existsSync(join(home, '.cursor'))).toBe(false);
  });

  it('writes nothing when the file already holds the same entry', () => {
    const project = temp();
    writeFileSync(join(project, 'app.js'), '');
    const home = temp();
    run(project, home, { words: ['app.js'] });
    const printed = run(project, home, { words: ['app.js'] });
    expect(printed).toContain(
      'already holds the server "app" as it would be written; nothing to do',
    );
    expect(existsSync(join(home, '.cursor', 'mcp.json.bak'))).toBe(false);
  });
});

describe('what install refuses, leaving the file as it was', () => {
  const bad = '{\n  "mcpServers": {\n    "x": \n  }\n}\n';
  it.each([
    [
      { configFile: 'bad.json', words: ['app.js'] },
      /bad\.json is not valid JSON: ValueExpected at line 4/,
    ],
    [
      { configFile: 'list.json', words: ['app.js'] },
      /list\.json holds a JSON array, not an object/,
    ],
    [
      { configFile: 'string.json', words: ['app.js'] },
      /string\.json has "mcpServers" as a string, where an object of servers belongs/,
    ],
    [{ words: ['missing.js'] }, /module file missing\.js not found/],
    [{ words: ['app.ts'] }, /app\.ts is TypeScript; .* build it first and give the \.js file/],
    [{ words: ['workspace', 'nowhere'] }, /workspace folder nowhere not found/],
    [{ words: ['app.js', 'more.js'] }, /unexpected "more\.js"; serve takes one module file/],
    [
      { words: ['app.js', '--http', '3000'] },
      /--http: a client starts the server it is given over stdio/,
    ],
    [{ words: ['app.js', '--bogus'] }, /serve has no option --bogus/],
    [{ words: ['app.js', '--drain-grace'] }, /serve: option '--drain-grace <ms>' argument missing/],
    // Values the command would refuse when the client starts it are refused now.
    [{ words: ['app.js', '--drain-grace', 'soon'] }, /--drain-grace "soon": give a whole number/],
    [{ words: ['app.js', '--stateless'] }, /--stateless applies to --http only/],
    [
      { words: ['workspace', '.', '--progress-keepalive', 'often'] },
      /--progress-keepalive "often": give a whole number of milliseconds up to 2147483647, e\.g\. --progress-keepalive 10000/,
    ],
    [{ words: ['workspace', '.', '--max-memory', 'abc'] }, /--max-memory/],
    [{ words: ['workspace', '.', '--shell-env', 'BAD=NAME'] }, /--shell-env: "BAD=NAME" is not/],
    [{ words: ['workspace', '.', '--no-sandbox', '--max-processes', '9'] }, /--no-sandbox/],
    [{ words: [] }, /give what to serve: serve dist\/app\.module\.js, or workspace/],
    [
      { scope: 'local' as const, words: ['app.js'] },
      /Cursor has no local configuration; give --scope user or project/,
    ],
    [{ name: 'a b', words: ['app.js'] }, /--name "a b": give 1 to 64 letters/],
  ])('%j', (options, message) => {
    const project = temp();
    const home = temp();
    writeFileSync(join(project, 'app.js'), '');
    writeFileSync(join(project, 'app.ts'), '');
    writeFileSync(join(project, 'bad.json'), bad);
    writeFileSync(join(project, 'list.json'), '[]');
    writeFileSync(join(project, 'string.json'), '{"mcpServers": "none"}');
    expect(() => run(project, home, options)).toThrow(message);
    expect(readFileSync(join(project, 'bad.json'), 'utf8')).toBe(bad);
    expect(readFileSync(join(project, 'string.json'), 'utf8')).toBe('{"mcpServers": "none"}');
    expect(existsSync(join(home, '.cursor'))).toBe(false);
  });
});
