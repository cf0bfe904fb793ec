/**
 * The files `agenttool init` writes. The tool and its test are the README's
 * (`samples/readme/greet.ts` and `greet.test.ts`, byte for byte: a test holds them equal),
 * and the same sources serve an ES module project and a CommonJS one: with
 * `module: nodenext`, `./greet.js` names the compiled file in both.
 */

/** ES modules (`"type": "module"`) or CommonJS. */
export type ModuleKind = 'esm' | 'cjs';

/**
 * The versions the project is pinned to, as this repository pins them: the TypeScript
 * and Node types it compiles with, and the SWC that `agenttool dev` compiles it with.
 */
export const TYPESCRIPT_VERSION = '6.0.3';
export const TYPES_NODE_VERSION = '22.20.7';
export const SWC_VERSION = '1.16.22';

/** The module file the scripts and the client configurations serve, built and from source. */
export const MODULE_SOURCE = 'src/greet.ts';
export const MODULE_BUILT = 'dist/greet.js';

/** npm's own placeholder for `scripts.test`, which a project made by `npm init` carries. */
export const NPM_PLACEHOLDER_TEST = 'echo "Error: no test specified" && exit 1';

const lines = (...text: string[]): string => `${text.join('\n')}\n`;

/** The scripts: `dev` serves from source, `start` the build, `test` compiles and runs the tests. */
export function scripts(): Record<string, string> {
  return {
    dev: `agenttool dev ${MODULE_SOURCE}`,
    build: 'tsc',
    start: `agenttool serve ${MODULE_BUILT}`,
    test: 'tsc && node --test "dist/**/*.test.js"',
  };
}

/** What `agenttool init` writes in package.json. */
export interface ProjectManifest {
  readonly name: string;
  readonly version: string;
  readonly private: true;
  readonly description: string;
  readonly type: 'module' | 'commonjs';
  readonly scripts: Record<string, string>;
  readonly dependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
  readonly engines: Record<string, string>;
  /**
   * npm's answer for the install scripts of the dependencies (npm 11.19 warns of each
   * it was not given): `@swc/core`'s only checks its native binary, which `dev` runs
   * without, so it is declined.
   */
  readonly allowScripts: Record<string, boolean>;
}

/** The package's manifest: agenttool at the command's own version, the compiler pinned. */
export function packageJson(
  name: string,
  kind: ModuleKind,
  agenttoolVersion: string,
): ProjectManifest {
  return {
    name,
    version: '0.1.0',
    private: true,
    description: 'Agent tools built with agenttool',
    type: kind === 'esm' ? 'module' : 'commonjs',
    scripts: scripts(),
    dependencies: { agenttool: agenttoolVersion },
    devDependencies: {
      '@swc/core': SWC_VERSION,
      '@types/node': TYPES_NODE_VERSION,
      typescript: TYPESCRIPT_VERSION,
    },
    engines: { node: '>=22.13' },
    allowScripts: { '@swc/core': false },
  };
}

/** The README's tsconfig.json: `src/` to `dist/`, with the two decorator settings. */
export const TSCONFIG = lines(
  '{',
  '  "compilerOptions": {',
  '    "target": "es2022",',
  '    "module": "nodenext",',
  '    "rootDir": "src",',
  '    "outDir": "dist",',
  '    "types": ["node"],',
  '    "strict": true,',
  '    "skipLibCheck": true,',
  '    "experimentalDecorators": true,',
  '    "emitDecoratorMetadata": true',
  '  },',
  '  "include": ["src"]',
  '}',
);

/** The first tool and its module. */
export const GREET = lines(
  "import { Param, Tool } from 'agenttool';",
  "import { Module } from 'agenttool/di';",
  '',
  'class GreetArgs {',
  "  @Param('Who to greet') name!: string;",
  '}',
  '',
  "@Tool({ name: 'greet', description: 'Greet someone by name', args: GreetArgs })",
  'export class Greet {',
  '  execute(args: GreetArgs): string {',
  '    return `Hello, ${args.name}!`;',
  '  }',
  '}',
  '',
  '@Module({ tools: [Greet] })',
  'export class GreetModule {}',
);

/** Its test, through agenttool/testing, run by `node --test`. */
export const GREET_TEST = lines(
  "import { strict as assert } from 'node:assert';",
  "import { describe, it } from 'node:test';",
  "import { PROTOCOL_ERAS, testClient } from 'agenttool/testing';",
  "import { GreetModule } from './greet.js';",
  '',
  "// The module served over MCP in memory, as a client's host would call it, in each",
  '// protocol era (2026-07-28 and 2025).',
  'for (const protocol of PROTOCOL_ERAS) {',
  '  describe(`greet (${protocol})`, () => {',
  "    it('greets someone by name', async () => {",
  '      const client = await testClient(GreetModule, { protocol });',
  '      try {',
  "        const outcome = await client.call('greet', { name: 'Ada' });",
  "        assert.equal(outcome.text, 'Hello, Ada!');",
  '      } finally {',
  '        await client.close();',
  '      }',
  '    });',
  '',
  "    it('refuses a name that is not a string, as the model reads it', async () => {",
  '      const client = await testClient(GreetModule, { protocol });',
  '      try {',
  "        const outcome = await client.call('greet', { name: 42 });",
  '        assert.match(outcome.text, /^Error: invalid arguments: /);',
  '      } finally {',
  '        await client.close();',
  '      }',
  '    });',
  '  });',
  '}',
);

/**
 * Claude Code's project configuration: `npm start` in the project, over stdio. `--silent`
 * keeps npm's own lines off stdout, which carries the protocol. Claude Code expands
 * `${VAR:-default}` and starts servers in the project's folder.
 */
export function claudeCodeConfig(server: string): string {
  return json({
    mcpServers: {
      [server]: { type: 'stdio', command: 'npm', args: startArgs('${CLAUDE_PROJECT_DIR:-.}') },
    },
  });
}

/** VS Code's workspace configuration (`.vscode/mcp.json`): the same server. */
export function vscodeConfig(server: string): string {
  return json({
    servers: {
      [server]: { type: 'stdio', command: 'npm', args: startArgs('${workspaceFolder}') },
    },
  });
}

/** `npm start` of the project at `root`, from whatever folder the client starts it in. */
function startArgs(root: string): string[] {
  return ['--prefix', root, '--silent', 'start'];
}

export const GITIGNORE = lines('node_modules/', 'dist/', '*.bak');

/** The project's README: what each script does, and where the clients' configurations are. */
export function readme(name: string, kind: ModuleKind): string {
  return lines(
    `# ${name}`,
    '',
    `Agent tools built with [agenttool](https://www.npmjs.com/package/agenttool), as ${kind === 'esm' ? 'an ES module' : 'a CommonJS'} project.`,
    '',
    '| command | what it does |',
    '| --- | --- |',
    '| `npm test` | compiles `src/` and runs its tests (`src/*.test.ts`) with `node --test` |',
    `| \`npm run dev\` | serves \`${MODULE_SOURCE}\` over MCP from source, reloading on each edit |`,
    '| `npm run build` | compiles `src/` to `dist/` |',
    `| \`npm start\` | serves the built \`${MODULE_BUILT}\` over MCP on stdio |`,
    '',
    `\`npx agenttool call ${MODULE_BUILT} greet '{"name": "Ada"}'\` calls the tool as a model`,
    `would, and \`npx agenttool list ${MODULE_BUILT}\` shows its definition and hash.`,
    '',
    '`src/greet.test.ts` calls the tool through `agenttool/testing`: an MCP client of the',
    'module in memory, in both protocol eras, that returns what the model reads.',
    '',
    '## In Claude Code and VS Code',
    '',
    '`.mcp.json` (Claude Code) and `.vscode/mcp.json` (VS Code) start the server with',
    "`npm --silent start` (npm's `--silent` keeps its own lines off the protocol's stdout):",
    'run `npm run build` first, and again after each change.',
  );
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
