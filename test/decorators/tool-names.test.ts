/**
 * Tool names are checked against MCP's rule (1 to 128 characters of A-Z, a-z, 0-9, `_`,
 * `-` and `.`) where a tool is registered: when a `@Tool` class is read, and when a tool
 * is added to an MCP server. An empty description is allowed (the contract allows it);
 * the app warns of it when it starts (test/di/app.test.ts).
 */
import { newTool, Tool, toolDescriptorOf, toolFromInstance } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { decoratorProblemsOf as problemsOf } from '../support/thrown';

function toolClassNamed(name: string): new () => object {
  @Tool({ name, description: 'A tool with the given name' })
  class Named {
    execute(): string {
      return 'ran';
    }
  }
  return Named;
}

describe('a @Tool name outside MCP rule', () => {
  it('fails when the class is read, naming the characters and a name that would do', () => {
    expect(problemsOf(() => toolDescriptorOf(toolClassNamed('read file')))).toEqual([
      'Named: @Tool name "read file" is not a tool name MCP accepts: " " is not allowed (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "read_file"',
    ]);
    expect(problemsOf(() => toolFromInstance(new (toolClassNamed('files/read: all'))()))).toEqual([
      'Named: @Tool name "files/read: all" is not a tool name MCP accepts: "/", ":", " " are not allowed (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "files_read_all"',
    ]);
  });

  it('fails past 128 characters, and takes 128', () => {
    const long = 'a'.repeat(129);
    expect(problemsOf(() => toolDescriptorOf(toolClassNamed(long)))).toEqual([
      `Named: @Tool name "${long}" is not a tool name MCP accepts: it is 129 characters long (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "${'a'.repeat(128)}"`,
    ]);
    expect(toolDescriptorOf(toolClassNamed('a'.repeat(128))).name).toHaveLength(128);
  });

  it('takes every character the rule allows', () => {
    const name = 'Files.read-all_2';
    expect(toolFromInstance(new (toolClassNamed(name))()).name).toBe(name);
  });
});

describe('an MCP server', () => {
  it('refuses to serve a tool whose name is outside the rule, and serves the others', () => {
    const named = (name: string) =>
      newTool({ name, description: 'd', execute: () => ({ output: '' }) });
    expect(() => serveTools([named('ok'), named('not ok')])).toThrow(
      expect.objectContaining({
        code: 'INVALID_TOOL_SET',
        message:
          'mcp: tool[1]: "not ok" is not a tool name MCP accepts: " " is not allowed (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "not_ok"',
      }),
    );
    const server = serveTools([named('ok')]);
    expect(() => server.addTools(named('émoji😀'))).toThrow(
      /^mcp: tool\[0\]: "émoji😀" is not a tool name MCP accepts: "é", "😀" are not allowed .*; rename it, e.g. "moji"$/,
    );
    expect(server.tools.map((t) => t.name)).toEqual(['ok']);
    return server.close();
  });
});
