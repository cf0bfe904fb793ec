import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { PROTOCOL_ERAS, testClient } from 'agenttool/testing';
import { GreetModule } from './greet.js';

// The module served over MCP in memory, as a client's host would call it, in each
// protocol era (2026-07-28 and 2025).
for (const protocol of PROTOCOL_ERAS) {
  describe(`greet (${protocol})`, () => {
    it('greets someone by name', async () => {
      const client = await testClient(GreetModule, { protocol });
      try {
        const outcome = await client.call('greet', { name: 'Ada' });
        assert.equal(outcome.text, 'Hello, Ada!');
      } finally {
        await client.close();
      }
    });

    it('refuses a name that is not a string, as the model reads it', async () => {
      const client = await testClient(GreetModule, { protocol });
      try {
        const outcome = await client.call('greet', { name: 42 });
        assert.match(outcome.text, /^Error: invalid arguments: /);
      } finally {
        await client.close();
      }
    });
  });
}
