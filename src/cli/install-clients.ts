import { homedir } from 'node:os';
import { join } from 'node:path';

/** The MCP clients `agenttool install` writes a server into. */
export const CLIENTS = ['claude-desktop', 'cursor', 'vscode', 'claude-code'] as const;
export type ClientName = (typeof CLIENTS)[number];

/**
 * Which configuration: the person's own (`user`), the project's, shared through the
 * repository (`project`), or Claude Code's entry for one project kept in the person's
 * own file (`local`).
 */
export type Scope = 'user' | 'project' | 'local';

/** The command line a client starts the server with. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
}

/** Where a client's configuration is, from what the platform says. */
export interface Place {
  readonly platform: NodeJS.Platform;
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  /** The project folder (`project` and `local` scopes). */
  readonly projectDir: string;
}

/** How one client keeps its MCP servers. */
export interface ClientSpec {
  readonly name: ClientName;
  /** The client's name, as people say it. */
  readonly title: string;
  /** The scopes it has, the default first. */
  readonly scopes: readonly Scope[];
  /** The configuration file of `scope`. */
  file(scope: Scope, place: Place): string;
  /** The JSON path of the server's entry in that file. */
  path(scope: Scope, name: string, place: Place): readonly string[];
  /** The entry for a server started with `launch`. */
  entry(launch: Launch): Record<string, unknown>;
  /** What to do for the client to pick the server up. */
  readonly after: string;
}

// Each file and format as the client's documentation states it (docs/cli.md lists the
// sources): Claude Desktop's claude_desktop_config.json, Cursor's mcp.json, VS Code's
// mcp.json (`servers`, `type: "stdio"`), Claude Code's .mcp.json and ~/.claude.json.
const stdioEntry = (launch: Launch): Record<string, unknown> => ({
  command: launch.command,
  args: [...launch.args],
});
const typedEntry = (launch: Launch): Record<string, unknown> => ({
  type: 'stdio',
  ...stdioEntry(launch),
});

/** The folder of an application's settings: Application Support, %APPDATA%, XDG. */
function appSettings(place: Place, app: string): string {
  if (place.platform === 'darwin') return join(place.home, 'Library', 'Application Support', app);
  if (place.platform === 'win32') {
    return join(place.env['APPDATA'] ?? join(place.home, 'AppData', 'Roaming'), app);
  }
  const xdg = place.env['XDG_CONFIG_HOME'];
  return join(xdg !== undefined && xdg !== '' ? xdg : join(place.home, '.config'), app);
}

export const CLIENT_SPECS: Readonly<Record<ClientName, ClientSpec>> = {
  'claude-desktop': {
    name: 'claude-desktop',
    title: 'Claude Desktop',
    scopes: ['user'],
    file: (_scope, place) => join(appSettings(place, 'Claude'), 'claude_desktop_config.json'),
    path: (_scope, name) => ['mcpServers', name],
    entry: stdioEntry,
    after: 'quit Claude Desktop and start it again to load it',
  },
  cursor: {
    name: 'cursor',
    title: 'Cursor',
    scopes: ['user', 'project'],
    file: (scope, place) =>
      scope === 'project'
        ? join(place.projectDir, '.cursor', 'mcp.json')
        : join(place.home, '.cursor', 'mcp.json'),
    path: (_scope, name) => ['mcpServers', name],
    entry: stdioEntry,
    after: 'Cursor lists it under its MCP settings; switch it on there if it is off',
  },
  vscode: {
    name: 'vscode',
    title: 'VS Code',
    scopes: ['user', 'project'],
    file: (scope, place) =>
      scope === 'project'
        ? join(place.projectDir, '.vscode', 'mcp.json')
        : join(appSettings(place, 'Code'), 'User', 'mcp.json'),
    path: (_scope, name) => ['servers', name],
    entry: typedEntry,
    after: 'VS Code offers to start it from the mcp.json file (or run "MCP: List Servers")',
  },
  'claude-code': {
    name: 'claude-code',
    title: 'Claude Code',
    scopes: ['project', 'user', 'local'],
    file: (scope, place) =>
      scope === 'project' ? join(place.projectDir, '.mcp.json') : join(place.home, '.claude.json'),
    path: (scope, name, place) =>
      scope === 'local' ? ['projects', place.projectDir, 'mcpServers', name] : ['mcpServers', name],
    entry: typedEntry,
    after: 'start Claude Code again (a project server asks for your approval once); /mcp shows it',
  },
};

/** Where things are on this machine, for the project in `projectDir`. */
export function currentPlace(projectDir: string): Place {
  return { platform: process.platform, home: homedir(), env: process.env, projectDir };
}
