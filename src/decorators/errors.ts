import { AgentToolError, goQuote } from '../core';

/**
 * A class that cannot be used as a tool or as arguments: every problem of the class,
 * each naming the class and field and saying how to fix it, collected and thrown
 * together with code `INVALID_DECORATOR`.
 */
export class DecoratorError extends AgentToolError {
  /** The class the problems were found reading. */
  readonly className: string;
  /** One line per problem. */
  readonly problems: readonly string[];

  constructor(what: string, className: string, problems: readonly string[]) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(
      'INVALID_DECORATOR',
      `agenttool: ${what} ${goQuote(className)} has ${count}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'DecoratorError';
    this.className = className;
    this.problems = problems;
  }
}
