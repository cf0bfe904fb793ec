import { InMemoryTransport } from '@modelcontextprotocol/server';
import {
  createContext,
  Param,
  recordable,
  type RecordFunc,
  recordOf,
  type Result,
  Tool,
  type ToolContext,
  type ToolRecord,
} from 'agenttool';
import { Module, ToolApp } from 'agenttool/di';
import { connectMcp, RemoteRecord, serveTools } from 'agenttool/mcp';

/*
 * The Go binding's server (mcpserver/mcp.go, CONTRACT §1.17) leaves the recorder on the
 * call's context: what a tool records while it runs goes to the server's recorder. What
 * crosses to the client is the record of the result's details, under
 * `_meta[RecordMetaKey]` as {"ns", "data"}, on success and error results alike; the
 * client (mcpclient ResultOf) makes it the details as a RemoteRecord.
 */

class NoteArgs {
  @Param('What to note') text!: string;
}

@Tool({ name: 'note', description: 'Records a note now and again as its result', args: NoteArgs })
class NoteTool {
  async execute(args: NoteArgs, ctx: ToolContext): Promise<Result> {
    await ctx.record(recordable('notes:during', { text: args.text }));
    return { output: 'noted', details: recordable('notes:noted', { text: args.text, n: 1 }) };
  }
}

@Module({ tools: [NoteTool] })
class NotesModule {}

function keeper(): { records: ToolRecord[]; recorder: RecordFunc } {
  const records: ToolRecord[] = [];
  return { records, recorder: (record) => void records.push(record) };
}

async function callNote(source: Parameters<typeof serveTools>[0], options = {}) {
  const server = serveTools(source, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const remote = await connectMcp({ transport: clientSide, protocol: 'legacy' });
  try {
    const tool = remote.tools()[0]!;
    const call = { id: 'call_1', args: '{"text":"hi"}' };
    return await tool.execute(call, createContext({ call }));
  } finally {
    await remote.close();
    await server.close();
  }
}

test("a served app's records go to the app's recorder", async () => {
  const app = keeper();
  const built = await ToolApp.create(NotesModule, { recorder: app.recorder });
  try {
    expect(built.recorder).toBe(app.recorder);
    await callNote(built);
    expect(app.records).toEqual([{ ns: 'notes:during', data: '{"text":"hi"}' }]);
  } finally {
    await built.close();
  }
});

test("a recorder given to the server wins over the app's", async () => {
  const app = keeper();
  const server = keeper();
  const built = await ToolApp.create(NotesModule, { recorder: app.recorder });
  try {
    await callNote(built, { recorder: server.recorder });
    expect(server.records).toEqual([{ ns: 'notes:during', data: '{"text":"hi"}' }]);
    expect(app.records).toEqual([]);
  } finally {
    await built.close();
  }
});

test("what crosses is the result's record, byte for byte, as the client's details", async () => {
  const built = await ToolApp.create(NotesModule);
  try {
    const result = await callNote(built);
    expect(result.details).toBeInstanceOf(RemoteRecord);
    expect(recordOf(result.details)).toEqual({ ns: 'notes:noted', data: '{"text":"hi","n":1}' });
  } finally {
    await built.close();
  }
});
