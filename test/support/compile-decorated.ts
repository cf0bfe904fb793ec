import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ts from 'typescript';

const dirs: string[] = [];
let count = 0;

/**
 * Compiles `source` as a user's tsc would, with experimental decorators (or, when
 * `experimentalDecorators` is false, standard ones) and with or without
 * `emitDecoratorMetadata`, and loads it through Jest's `require`, so that its
 * `agenttool` imports are the same modules the test imports. Returns its exports.
 */
export function compileDecorated(
  source: string,
  options: { emitDecoratorMetadata: boolean; experimentalDecorators?: boolean },
): Record<string, unknown> {
  const { outputText, diagnostics } = ts.transpileModule(source, {
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      experimentalDecorators: options.experimentalDecorators ?? true,
      emitDecoratorMetadata: options.emitDecoratorMetadata,
      useDefineForClassFields: false,
    },
  });
  if (diagnostics !== undefined && diagnostics.length > 0) {
    const text = diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    throw new Error(`the source does not compile:\n${text.join('\n')}`);
  }
  if (dirs.length === 0) dirs.push(mkdtempSync(join(tmpdir(), 'agenttool-compiled-')));
  const dir = join(dirs[0]!, String(count++));
  mkdirSync(dir);
  const file = join(dir, 'compiled.js');
  writeFileSync(file, outputText);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loads the compiled file
  return require(file) as Record<string, unknown>;
}

/** Removes the compiled files (call from afterAll). */
export function removeCompiled(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
