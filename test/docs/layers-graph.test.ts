import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

// The picture of the layers on the contributor page is what `npm run arch:graph` prints
// from the code now, so that it cannot drift from the imports.
const REPO = path.join(__dirname, '../..');
const CLI = path.join(REPO, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const run = promisify(execFile);

/** The command `npm run arch:graph` runs, as arguments of dependency-cruiser. */
function graphArguments(): string[] {
  const scripts = (
    JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const command = scripts['arch:graph'];
  if (command === undefined) throw new Error('package.json has no arch:graph script');
  const [program, ...args] = command.split(/\s+/);
  expect(program).toBe('depcruise');
  return args;
}

it('the contributor page shows the layers as npm run arch:graph draws them', async () => {
  const { stdout } = await run(process.execPath, [CLI, ...graphArguments()], {
    cwd: REPO,
    maxBuffer: 16 << 20,
  });
  const page = fs.readFileSync(path.join(REPO, 'docs/contributing.md'), 'utf8');
  const block = /```mermaid\n([\s\S]*?)```/.exec(page);
  expect(block).not.toBeNull();
  const body = block?.[1] ?? '';
  const lines = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '');
  expect(lines(body)).toEqual(lines(stdout));
  expect(stdout).toContain('src_di-->src_core');
}, 60_000);
