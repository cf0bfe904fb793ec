import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { PROTOCOL_ERAS, testClient } from 'agenttool/testing';
import { ImportRows } from './context';

// The tool of "Writing a tool", served over MCP in memory, once per protocol era.
for (const protocol of PROTOCOL_ERAS) {
  describe(`import_rows (${protocol})`, () => {
    it('imports once the user confirms, with progress and a record', async () => {
      const client = await testClient(ImportRows, { protocol });
      try {
        const outcome = await client.ask('import_rows', { rows: 120 }, [
          {
            question: 'Import 120 rows?',
            answer: { action: 'accept', content: { confirm: true } },
          },
        ]);
        assert.equal(outcome.text, 'Imported 120 rows');
        assert.equal(outcome.progress.at(-1), 'All rows written; indexing');
        assert.deepEqual(
          outcome.records.map((record) => record.ns),
          ['import:rows'],
        );
      } finally {
        await client.close();
      }
    });

    it('refuses rows that are not a whole number, as the model reads it', async () => {
      const client = await testClient(ImportRows, { protocol });
      try {
        const outcome = await client.call('import_rows', { rows: 1.5 });
        assert.match(outcome.text, /^Error: invalid arguments: /);
      } finally {
        await client.close();
      }
    });

    it('stops when the host interrupts it', async () => {
      const client = await testClient(ImportRows, { protocol });
      try {
        const running = client.start(
          'import_rows',
          { rows: 10_000_000 },
          {
            answers: [{ action: 'accept', content: { confirm: true } }],
          },
        );
        await running.started; // the tool is running on the server
        running.cancel(); // as a host's Esc: MCP's cancellation reaches ctx.signal
        assert.equal((await running.outcome).cancelled, true);
        assert.equal((await running.settled).sawAbort, true);
      } finally {
        await client.close();
      }
    });
  });
}
