import {
  AgentToolError,
  type Answer,
  type Elicitation,
  type Elicitor,
  isJsonObject,
} from 'agenttool';

/**
 * One scripted answer: the `Answer` itself (`{ action: 'accept', content: {...} }`,
 * `{ action: 'decline' }`, `{ action: 'cancel' }`), or the answer with the question it
 * expects, a string to equal or a RegExp to match; a question that differs fails the test.
 */
export type ScriptedAnswer =
  Answer | { readonly question: string | RegExp; readonly answer: Answer };

/**
 * A test's script broken by the tool under test: a question beyond the scripted answers,
 * a question other than the one expected, or answers left unused when the call ended.
 * Its message names the tool and the question.
 */
export class ScriptError extends AgentToolError {
  constructor(message: string) {
    super('INVALID_OPTIONS', message);
    this.name = 'ScriptError';
  }
}

/** An elicitor that answers from a script, and what it saw. */
export interface ScriptedElicitor {
  /** Answers each question with the next scripted answer, in order. */
  readonly elicitor: Elicitor;
  /** Every question asked so far, in the order asked. */
  readonly questions: readonly Elicitation[];
  /** The first way the script was broken, if any (also thrown to the tool that asked). */
  readonly failure: ScriptError | undefined;
  /**
   * Throws the {@link ScriptError} of a broken script: a question it had no answer
   * for, one it did not expect, or (at the end of the call) answers left unused.
   */
  check(): void;
}

const ACTIONS: readonly string[] = ['accept', 'decline', 'cancel'];

/**
 * An elicitor for a test: it answers the questions of a call with `answers`, in order.
 * A question with no answer left, or one other than the answer expects, is refused: the
 * elicitor throws a {@link ScriptError} naming the question (the tool sees the harness
 * fail to ask), and {@link ScriptedElicitor.check} throws it again, so a tool that
 * swallows the failure still fails the test. `tool` names the tool in the messages.
 */
export function scriptedElicitor(
  answers: readonly ScriptedAnswer[] = [],
  tool = 'the tool',
): ScriptedElicitor {
  const script = answers.map((answer, i) => checkedAnswer(answer, i));
  const questions: Elicitation[] = [];
  let failure: ScriptError | undefined;
  const elicitor: Elicitor = (question) => {
    questions.push(question);
    const n = questions.length;
    const next = script[n - 1];
    if (next === undefined) {
      failure ??= new ScriptError(
        `${tool} asked a question the test gave no answer for: ${JSON.stringify(question.message)} (question ${n}; ${countOf(script.length, 'answer')} scripted). Script one, e.g. { action: 'accept', content: {...} }, or { action: 'cancel' } for a user who dismisses it`,
      );
      throw failure;
    }
    if (next.question !== undefined && !matches(next.question, question.message)) {
      failure ??= new ScriptError(
        `${tool} asked ${JSON.stringify(question.message)} as question ${n}, where the test expected ${describe(next.question)}`,
      );
      throw failure;
    }
    return next.answer;
  };
  return {
    elicitor,
    get questions() {
      return [...questions];
    },
    get failure() {
      return failure;
    },
    check() {
      if (failure !== undefined) throw failure;
      if (questions.length < script.length) {
        const asked = questions.map((q) => JSON.stringify(q.message)).join(', ');
        throw new ScriptError(
          `${tool} asked ${countOf(questions.length, 'question')}${asked === '' ? '' : ` (${asked})`} and the test scripted ${countOf(script.length, 'answer')}: ${countOf(script.length - questions.length, 'answer')} left unused`,
        );
      }
    },
  };
}

interface CheckedAnswer {
  readonly question: string | RegExp | undefined;
  readonly answer: Answer;
}

/** A scripted answer, checked as it is given, so that a typo fails where it is written. */
function checkedAnswer(scripted: ScriptedAnswer, index: number): CheckedAnswer {
  const where = `agenttool/testing: answer ${index + 1}`;
  if (typeof scripted !== 'object' || scripted === null) {
    throw new ScriptError(
      `${where}: give an answer object, e.g. { action: 'accept', content: {...} }`,
    );
  }
  const expects = 'question' in scripted ? scripted.question : undefined;
  const answer = 'question' in scripted ? scripted.answer : scripted;
  if (expects !== undefined && typeof expects !== 'string' && !(expects instanceof RegExp)) {
    throw new ScriptError(`${where}: question must be a string or a RegExp`);
  }
  const action: unknown = (answer as { action?: unknown } | undefined)?.action;
  if (typeof action !== 'string' || !ACTIONS.includes(action)) {
    throw new ScriptError(
      `${where}: action must be "accept", "decline" or "cancel", got ${JSON.stringify(action) ?? 'undefined'}`,
    );
  }
  const content: unknown = answer.content;
  if (content !== undefined && !isJsonObject(content)) {
    throw new ScriptError(`${where}: content must be a JSON object (the form's fields)`);
  }
  if (content !== undefined && action !== 'accept') {
    throw new ScriptError(`${where}: only an accept carries content; ${action} has none`);
  }
  return { question: expects, answer };
}

function matches(expected: string | RegExp, message: string): boolean {
  // search() ignores a global RegExp's lastIndex, so a script can reuse one.
  return typeof expected === 'string' ? expected === message : message.search(expected) !== -1;
}

function describe(expected: string | RegExp): string {
  return typeof expected === 'string'
    ? JSON.stringify(expected)
    : `a question matching ${String(expected)}`;
}

function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
