// The mcpServers configuration as Claude Desktop, Cursor and VS Code write it, checked:
// every mistake named by source, entry and field, values of env and headers never in a
// message, ${VAR} expanded only when asked.
import { checkMcpServersConfig } from 'agenttool/mcp';

const source = { source: 'servers.json' };

function refusal(config: unknown, options = {}): string {
  try {
    checkMcpServersConfig(config, { ...source, ...options });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('checkMcpServersConfig', () => {
  it('reads stdio and HTTP entries, VS Code’s servers and type, and leaves out disabled ones', () => {
    const checked = checkMcpServersConfig(
      {
        servers: {
          files: {
            type: 'stdio',
            command: 'npx',
            args: ['-y', 'files'],
            env: { TOKEN: 't0ken' },
            cwd: 'sub',
          },
          web: {
            type: 'http',
            url: 'https://example.com/mcp?key=abcd1234',
            headers: { Authorization: 'Bearer xyz123' },
          },
          off: { command: 'nothing', disabled: true },
        },
        inputs: [],
      },
      { ...source, baseDir: '/srv/conf' },
    );
    expect(checked.servers.map((s) => s.name)).toEqual(['files', 'web']);
    const [files, web] = checked.servers;
    expect(files?.target).toEqual({
      command: 'npx',
      args: ['-y', 'files'],
      env: { TOKEN: 't0ken' },
      cwd: '/srv/conf/sub',
    });
    expect(files?.shown).toBe('npx -y files');
    expect(web?.shown).toBe('https://example.com/mcp');
    expect(web?.secrets).toEqual(expect.arrayContaining(['Bearer xyz123', 'abcd1234']));
    // A stdio server without a cwd starts in the config file's folder.
    const plain = checkMcpServersConfig(
      { mcpServers: { a: { command: 'a' } } },
      { baseDir: '/srv/conf' },
    );
    expect(plain.servers[0]?.target).toMatchObject({ cwd: '/srv/conf' });
  });

  it.each([
    [[], 'servers.json: must be a JSON object with "mcpServers"'],
    [
      { mcpServer: { a: { command: 'x' } } },
      'servers.json: has no "mcpServers" (an object of servers by name), nor VS Code\'s "servers"',
    ],
    [
      { mcpServers: {}, servers: {} },
      'servers.json: give "mcpServers" or VS Code\'s "servers", not both',
    ],
    [{ mcpServers: [] }, 'servers.json: mcpServers: must be an object of servers by name'],
    [
      { mcpServers: { a: 'npx' } },
      'servers.json: mcpServers.a: must be an object: { "command", "args" } or { "url" }',
    ],
    [
      { mcpServers: { a: {} } },
      'servers.json: mcpServers.a: give "command" (a stdio server) or "url" (an HTTP server)',
    ],
    [
      { mcpServers: { a: { command: 'x', url: 'http://h/' } } },
      'servers.json: mcpServers.a: give "command" (a stdio server) or "url" (an HTTP server), not both',
    ],
    [
      { mcpServers: { a: { command: 'x', args: ['ok', 7] } } },
      'servers.json: mcpServers.a.args[1]: must be a string',
    ],
    [
      { mcpServers: { 'my server': { command: 'x' } } },
      'servers.json: mcpServers["my server"]: the server\'s name prefixes its tools (my server__<tool>), so it may hold only A-Z, a-z, 0-9, _, - and .',
    ],
    // `a` listing `b__fast` and `a__b` listing `fast` would both serve `a__b__fast`.
    [
      { mcpServers: { a: { command: 'x' }, a__b: { command: 'y' } } },
      'servers.json: mcpServers.a__b: the server\'s name prefixes its tools (a__b__<tool>), so it may not hold "__" nor end with "_": another server\'s tool names could then be its own; rename it (e.g. "a_b")',
    ],
    [
      { servers: { files_: { command: 'x' } } },
      'servers.json: servers.files_: the server\'s name prefixes its tools (files___<tool>), so it may not hold "__" nor end with "_": another server\'s tool names could then be its own; rename it (e.g. "files")',
    ],
    [
      { mcpServers: { a: { url: 'nope' } } },
      'servers.json: mcpServers.a.url: is not a URL; give the server\'s Streamable HTTP endpoint, e.g. "http://127.0.0.1:3000/mcp"',
    ],
    [
      { mcpServers: { a: { type: 'sse', url: 'http://h/sse' } } },
      'servers.json: mcpServers.a.type: "sse" (the 2024 HTTP+SSE transport) is not supported; give the server\'s Streamable HTTP endpoint with "type": "http"',
    ],
    [
      { mcpServers: { a: { command: 'x', tools: { includes: ['a'] } } } },
      'servers.json: mcpServers.a.tools.includes: is not a member of a tools section (include, exclude, transform, includeTags, excludeTags)',
    ],
    [
      { mcpServers: { a: { command: 'x', tools: { transform: { t: { rename: 'a b' } } } } } },
      'servers.json: mcpServers.a.tools.transform.t.rename: "a b" is not a tool name MCP accepts',
    ],
    [
      { mcpServers: {}, includeTags: 'safe' },
      'servers.json: includeTags: must be a list of non-empty strings',
    ],
    [
      { mcpServers: {}, retry: { maxAttempts: 0 } },
      'servers.json: retry.maxAttempts: must be a whole number, 1 or more',
    ],
  ])('refuses %j: %s', (config, message) => {
    expect(refusal(config)).toContain(message);
  });

  it('names the field of a bad env or header value, never the value', () => {
    const message = refusal({
      mcpServers: { a: { command: 'x', env: { TOKEN: 'secret-1', N: 42 } } },
    });
    expect(message).toBe('servers.json: mcpServers.a.env.N: must be a string');
    const headers = refusal({
      mcpServers: { a: { url: 'http://h/', headers: { Authorization: ['Bearer s3cret'] } } },
    });
    expect(headers).toBe('servers.json: mcpServers.a.headers.Authorization: must be a string');
    expect(headers).not.toContain('s3cret');
  });

  it('takes the credential of a header out with the header: a server may quote it alone', () => {
    const basic = Buffer.from('ghp_user42:pa55word').toString('base64');
    const checked = checkMcpServersConfig({
      mcpServers: {
        web: {
          url: 'https://u:p4ssw0rd@example.com/mcp?key=abcd1234&pct=100%',
          headers: {
            Authorization: `Bearer xyz123456`,
            'Proxy-Authorization': `Basic ${basic}`,
            'X-Auth': 'token tok-9876',
            'User-Agent': 'my client 1.0',
          },
        },
      },
    });
    const secrets = checked.servers[0]?.secrets ?? [];
    expect(secrets).toEqual(
      expect.arrayContaining([
        'Bearer xyz123456',
        'xyz123456',
        `Basic ${basic}`,
        basic,
        'ghp_user42:pa55word',
        'pa55word',
        'ghp_user42',
        'tok-9876',
        'p4ssw0rd',
        'abcd1234',
        // A lone % is kept as it is, not a failure to decode.
        '100%',
      ]),
    );
    // A header that is no scheme and credential is a secret whole, not word by word.
    expect(secrets).not.toContain('client 1.0');
  });

  it('shows a command line as written: a value from the environment is a secret, a long word clipped', () => {
    const checked = checkMcpServersConfig(
      {
        mcpServers: {
          gh: { command: 'npx', args: ['-y', 'server-github', '--token=${GH_TOKEN}'] },
          script: { command: 'node', args: ['-e', `${'x'.repeat(200)}`, `one\ntwo`] },
        },
      },
      { ...source, env: { GH_TOKEN: 'ghp_secret42' } },
    );
    const [gh, script] = checked.servers;
    expect(gh?.target).toMatchObject({ args: ['-y', 'server-github', '--token=ghp_secret42'] });
    expect(gh?.shown).toBe('npx -y server-github --token=${GH_TOKEN}');
    expect(gh?.secrets).toContain('ghp_secret42');
    expect(script?.shown).toBe(`node -e ${'x'.repeat(120)}... one...`);
  });

  it('refuses a ${VAR} placeholder in a secret field unless expansion is asked for', () => {
    const config = {
      mcpServers: { gh: { url: 'http://h/mcp', headers: { Authorization: 'Bearer ${GH_TOKEN}' } } },
    };
    expect(refusal(config)).toBe(
      'servers.json: mcpServers.gh.headers.Authorization: holds a ${...} placeholder, which is not expanded unless asked: give --expand-env (the env option in code) to take it from the environment, or write the value',
    );
    const expanded = checkMcpServersConfig(config, { env: { GH_TOKEN: 'tok-42' } });
    expect(expanded.servers[0]?.target).toEqual({
      url: 'http://h/mcp',
      headers: { Authorization: 'Bearer tok-42' },
    });
    expect(expanded.servers[0]?.secrets).toContain('Bearer tok-42');
    expect(refusal(config, { env: {} })).toBe(
      'servers.json: mcpServers.gh.headers.Authorization: names the environment variable "GH_TOKEN", which is not set',
    );
    // VS Code's spelling, in args too.
    const vscode = checkMcpServersConfig(
      { servers: { a: { command: 'run', args: ['--dir', '${env:HOME_DIR}'] } } },
      { env: { HOME_DIR: '/home/ada' } },
    );
    expect(vscode.servers[0]?.target).toMatchObject({ args: ['--dir', '/home/ada'] });
    // Without expansion, a placeholder in args is an ordinary argument.
    const literal = checkMcpServersConfig({
      mcpServers: { a: { command: 'echo', args: ['${X}'] } },
    });
    expect(literal.servers[0]?.target).toMatchObject({ args: ['${X}'] });
  });
});
