// Loads every public entry from the built output, as a user's node would, and runs one
// tool through the executor. A missing `.js` on an SDK subpath passes tsc and jest but
// fails here.
'use strict';
const assert = require('node:assert/strict');

async function main() {
  const root = require('agenttool');
  require('agenttool/mcp');
  require('agenttool/di');
  const tool = root.newTool({
    name: 'echo',
    description: 'Echo the arguments',
    execute: (call) => root.text(call.args),
  });
  const set = new root.ToolSet([tool]);
  set.validate();
  assert.equal(root.definitionHash(tool).startsWith('sha256:'), true);
  const result = await tool.execute({ id: 'smoke', args: '{"x":1}' }, root.createContext());
  assert.equal(result.output, '{"x":1}');
  console.log('smoke: public entries load from dist and a tool runs');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
