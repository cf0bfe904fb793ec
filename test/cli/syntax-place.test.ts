/**
 * Where a module file is written wrong: Node puts a CommonJS syntax error's file and
 * line in its stack's first lines, not its message; `syntaxPlace` reads them (for
 * `serve`, `list` and `call` loading a module file, and `dev`'s reloads).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { syntaxPlace } from '../../src/cli/syntax-place';
import { ensureBuilt, killChildren, ROOT, tempDir } from './helpers';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

beforeAll(() => ensureBuilt(), 300_000);

test('reads the file, line and column of a syntax error a require threw', () => {
  const file = join(tempDir(), 'parts.js');
  writeFileSync(file, '// parts\nconst answer = ;\n');
  // Node's own require (jest's module system throws errors of its own making).
  const script = `const { syntaxPlace } = require(${JSON.stringify(join(ROOT, 'dist/src/cli/syntax-place.js'))});
    try { require(${JSON.stringify(file)}); } catch (error) { console.log(JSON.stringify(syntaxPlace(error))); }`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(JSON.parse(run.stdout)).toEqual({ file, line: 2, column: 16 });
});

test('reads nothing of another error, or a syntax error without a place', () => {
  expect(syntaxPlace(new Error('no config file'))).toBeUndefined();
  expect(syntaxPlace(new SyntaxError('Unexpected token'))).toBeUndefined();
  expect(syntaxPlace('a string')).toBeUndefined();
});
