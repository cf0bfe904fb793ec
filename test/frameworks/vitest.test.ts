/**
 * `agenttool/testing` under Vitest, as a project that installed both runs it: the
 * testing entry takes nothing of Jest's, so a Vitest suite serves a module in memory
 * and calls it in both protocol eras. The module is JavaScript as tsc leaves it
 * (decorators applied by call), since Vitest's own transform emits no decorator
 * metadata (docs/testing.md says what to add for TypeScript).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, killChildren, ROOT, tempDir } from '../cli/helpers';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

const MODULE = `import { Param, Tool } from 'agenttool';
import { Module } from 'agenttool/di';

class GreetArgs {}
Param('Who to greet', { type: 'string' })(GreetArgs.prototype, 'name');

export class Greet {
  execute(args) {
    return 'Hello, ' + args.name + '!';
  }
}
Tool({ name: 'greet', description: 'Greet someone by name', args: GreetArgs })(Greet);

export class GreetModule {}
Module({ tools: [Greet] })(GreetModule);
`;

const SUITE = `import { describe, expect, it } from 'vitest';
import { PROTOCOL_ERAS, testClient } from 'agenttool/testing';
import { GreetModule } from './greet.js';

for (const protocol of PROTOCOL_ERAS) {
  describe('greet (' + protocol + ')', () => {
    it('lists and calls the tool as a client does', async () => {
      const client = await testClient(GreetModule, { protocol });
      try {
        expect((await client.list()).map((tool) => tool.name)).toEqual(['greet']);
        expect((await client.call('greet', { name: 'Ada' })).text).toBe('Hello, Ada!');
        const refused = await client.call('greet', { name: 1 });
        expect(refused.text).toMatch(/^Error: invalid arguments: /);
      } finally {
        await client.close();
      }
    });
  });
}
`;

test('a Vitest suite serves a module through agenttool/testing in both eras', () => {
  ensureBuilt();
  const dir = tempDir();
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'agenttool'));
  symlinkSync(join(ROOT, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "greeter", "type": "module" }\n');
  writeFileSync(join(dir, 'greet.js'), MODULE);
  writeFileSync(join(dir, 'greet.test.js'), SUITE);
  const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const run = spawnSync(process.execPath, [vitest, 'run', '--reporter=json'], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', CI: 'true' },
    timeout: 120_000,
  });
  const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
    numPassedTests: number;
    numFailedTests: number;
  };
  expect({ passed: report.numPassedTests, failed: report.numFailedTests }).toEqual({
    passed: 2,
    failed: 0,
  });
  expect(run.status).toBe(0);
}, 150_000);
