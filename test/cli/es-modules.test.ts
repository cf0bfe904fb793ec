/**
 * The command loads a user's module file with import(): an ES module with top-level
 * await works (require() fails on it with ERR_REQUIRE_ASYNC_MODULE), and so does a
 * --auth-verifier written as one. CommonJS module files keep working (the other CLI
 * tests load the CommonJS fixture).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ESM_APP,
  ensureBuilt,
  killChildren,
  runAgenttool,
  startAgenttool,
  tempDir,
} from './helpers';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

describe('an ES module file with top-level await', () => {
  it('is called, listed and served', async () => {
    const called = await runAgenttool(['call', ESM_APP, 'greet', '{"name": "Ada"}']);
    expect(called).toMatchObject({ code: 0, stdout: 'Hello, Ada!\n', stderr: '' });
    const listed = await runAgenttool(['list', ESM_APP]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^greet +sha256:[0-9a-f]{64} +- +unstated$/m);
  });

  it('is found by its export name with file.mjs#Name', async () => {
    const ran = await runAgenttool(['call', `${ESM_APP}#EsmAppModule`, 'greet', '{"name": "Lin"}']);
    expect(ran).toMatchObject({ code: 0, stdout: 'Hello, Lin!\n' });
  });

  it('serves with an --auth-verifier that is an ES module with top-level await', async () => {
    const server = startAgenttool([
      'serve',
      ESM_APP,
      '--http',
      '127.0.0.1:0',
      '--auth-issuer',
      'https://auth.example.com',
      '--auth-verifier',
      join(ESM_APP, '../esm-verifier.mjs'),
    ]);
    const [, url] = await server.waitForStderr(/over Streamable HTTP at (http:\S+)\n/);
    await server.waitForStderr(
      / {2}authorization: on: bearer tokens from https:\/\/auth\.example\.com/,
    );
    const allowed = await runAgenttool([
      'call',
      '--http',
      url!,
      '--token',
      'let-me-in',
      'greet',
      '{"name": "Ada"}',
    ]);
    expect(allowed).toMatchObject({ code: 0, stdout: 'Hello, Ada!\n' });
    const refused = await runAgenttool(['call', '--http', url!, '--token', 'wrong', 'greet']);
    expect(refused.code).not.toBe(0);
    server.process.kill('SIGTERM');
    expect((await server.done).code).toBe(0);
  }, 60_000);
});

describe('a module file that fails as it loads', () => {
  it.each([
    [
      'an ES module',
      'broken.mjs',
      'await Promise.resolve();\nthrow new Error("no config file");\n',
    ],
    ['a CommonJS module', 'broken.cjs', 'throw new Error("no config file");\n'],
  ])('reports the failure of %s in one line', async (_, name, source) => {
    const file = join(tempDir(), name);
    writeFileSync(file, source);
    const ran = await runAgenttool(['call', file, 'greet']);
    expect(ran).toMatchObject({ code: 2, stdout: '' });
    expect(ran.stderr).toMatch(/^agenttool: loading .*broken\.[cm]js failed: no config file\n$/);
  });

  it('asks for the export name when the module path ends in #', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'app.js'), 'exports.A = 1;\n');
    const ran = await runAgenttool(['list', 'app.js#'], { cwd: dir });
    expect(ran).toMatchObject({ code: 2, stdout: '' });
    expect(ran.stderr).toBe(
      'agenttool: "app.js#": give the name of a @Module export after #, e.g. app.js#AppModule, or leave the # out\n',
    );
  });

  it('names the file, line and column of a syntax error in a file it requires', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'app.js'), 'exports.A = 1;\nrequire("./parts.js");\n');
    writeFileSync(join(dir, 'parts.js'), '// parts\nconst x = ;\n');
    const ran = await runAgenttool(['list', join(dir, 'app.js')], { cwd: dir });
    expect(ran).toMatchObject({ code: 2, stdout: '' });
    expect(ran.stderr).toBe(
      "agenttool: loading app.js failed: parts.js:2:11: Unexpected token ';'\n",
    );
  });
});
