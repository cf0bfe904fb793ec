import { AgentToolError, type AgentToolErrorCode } from '../core';

/** One problem found while composing an app, with the code of its kind. */
export interface ModuleProblem {
  readonly code: AgentToolErrorCode;
  readonly message: string;
}

/**
 * Everything wrong with an app's modules, found at creation and reported together.
 * `problems` lists each one; the message has one line per problem.
 */
export class ModuleError extends AgentToolError {
  readonly problems: readonly ModuleProblem[];

  constructor(root: string, problems: readonly ModuleProblem[]) {
    const first = problems[0];
    const code =
      problems.every((p) => p.code === first?.code) && first ? first.code : 'INVALID_MODULE';
    const lines = problems.map((p) => `  - ${p.message}`).join('\n');
    super(
      code,
      problems.length === 1 && first
        ? `ToolApp.create(${root}): ${first.message}`
        : `ToolApp.create(${root}): ${problems.length} problems:\n${lines}`,
    );
    this.name = 'ModuleError';
    this.problems = problems;
  }
}
