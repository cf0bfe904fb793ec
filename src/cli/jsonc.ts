// The parts of jsonc-parser the install command edits a host's configuration with, in a
// module of their own that install-config.ts requires on first use: the bundle keeps
// these and what they need, and no start but install's evaluates them.
export {
  applyEdits,
  findNodeAtLocation,
  modify,
  parseTree,
  printParseErrorCode,
} from 'jsonc-parser';
export type { ParseError } from 'jsonc-parser';
