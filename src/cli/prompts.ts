import type * as Readline from 'node:readline';
import { type Interface } from 'node:readline';
import { type Readable, type Writable } from 'node:stream';
import {
  type Answer,
  CANCELLED_ANSWER,
  type Elicitation,
  type Elicitor,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from './public-api';
import { terminalSafe, terminalSafeLines } from './terminal-text';

/**
 * Puts a tool's questions to the person at the terminal: a form question field by
 * field (re-asking until an answer fits the field), a URL question printed with the
 * address to open. `:decline` or `:cancel` at any prompt refuses; the end of input
 * cancels. Questions asked at once are put one after another.
 */
export class TerminalPrompter {
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #interactive: boolean;
  #lines: LineQueue | undefined;
  #turn: Promise<unknown> = Promise.resolve();

  constructor(input: Readable, output: Writable, interactive: boolean) {
    this.#input = input;
    this.#output = output;
    this.#interactive = interactive;
  }

  /** The elicitor to install on a call's context. */
  readonly elicitor: Elicitor = (question) => {
    const answer = this.#turn.then(() => this.#ask(question));
    this.#turn = answer.catch(() => undefined);
    return answer;
  };

  /** Stops reading the input. */
  close(): void {
    this.#lines?.close();
    this.#lines = undefined;
  }

  async #ask(question: Elicitation): Promise<Answer> {
    this.#lines ??= new LineQueue(this.#input, this.#output, this.#interactive);
    const lines = this.#lines;
    this.#say(`? ${question.message}`);
    if (question.url !== undefined) {
      this.#say(`  open: ${terminalSafe(question.url)}`);
      const reply = await lines.next('  press Enter once done (:decline or :cancel to refuse): ');
      return refusal(reply) ?? { action: 'accept' };
    }
    const schema = question.schema;
    const properties = isJsonObject(schema?.['properties']) ? schema['properties'] : {};
    const required = Array.isArray(schema?.['required']) ? schema['required'] : [];
    const content: Record<string, JsonValue> = {};
    this.#say('  (answer each field; :decline or :cancel to refuse)');
    for (const [name, raw] of Object.entries(properties)) {
      const field = describeField(name, isJsonObject(raw) ? raw : {}, required.includes(name));
      for (;;) {
        const reply = await lines.next(`  ${terminalSafe(field.prompt)}: `);
        const refused = refusal(reply);
        if (refused !== undefined) return refused;
        const parsed = field.parse(reply!.trim());
        if (parsed.error !== undefined) {
          this.#say(`  ${parsed.error}`);
          continue;
        }
        if (parsed.value !== undefined) content[name] = parsed.value;
        break;
      }
    }
    return { action: 'accept', content };
  }

  /** Writes `line`: what the server chose in it is shown safe (see terminal-text.ts). */
  #say(line: string): void {
    this.#output.write(`${terminalSafeLines(line)}\n`);
  }
}

/** `:decline`/`:cancel` as answers; the end of input (null) cancels. */
function refusal(reply: string | null): Answer | undefined {
  if (reply === null) return CANCELLED_ANSWER;
  const word = reply.trim().toLowerCase();
  if (word === ':decline') return { action: 'decline' };
  if (word === ':cancel') return CANCELLED_ANSWER;
  return undefined;
}

interface Field {
  readonly prompt: string;
  parse(text: string): { value?: JsonValue; error?: string };
}

/** How one field of a form is asked and its answer read, from its schema. */
export function describeField(name: string, schema: JsonObject, required: boolean): Field {
  const type = typeof schema['type'] === 'string' ? schema['type'] : 'string';
  const choices = choicesOf(schema);
  const fallback = schema['default'];
  const hints: string[] = [
    choices !== undefined ? 'one of ' + choices.map(showChoice).join(', ') : type,
  ];
  if (required) hints.push('required');
  if (fallback !== undefined) hints.push(`default ${JSON.stringify(fallback)}`);
  const title = typeof schema['title'] === 'string' ? schema['title'] : name;
  const description =
    typeof schema['description'] === 'string' ? ` - ${schema['description']}` : '';
  const prompt = `${title}${description} (${hints.join(', ')})`;
  return {
    prompt,
    parse: (text) => {
      if (text === '') {
        if (fallback !== undefined) return { value: fallback };
        return required ? { error: `${name} is required` } : {};
      }
      if (choices !== undefined) {
        const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
        const byIndex = choices[index];
        if (byIndex !== undefined) return { value: byIndex.value };
        const match = choices.find((c) => showValue(c.value) === text || c.title === text);
        if (match !== undefined) return { value: match.value };
        return { error: `${name}: choose one of ${choices.map(showChoice).join(', ')}` };
      }
      switch (type) {
        case 'boolean':
          if (/^(y|yes|true|1)$/i.test(text)) return { value: true };
          if (/^(n|no|false|0)$/i.test(text)) return { value: false };
          return { error: `${name}: answer yes or no` };
        case 'integer':
        case 'number': {
          const value = Number(text);
          if (!Number.isFinite(value)) return { error: `${name}: give a number` };
          if (type === 'integer' && !Number.isInteger(value)) {
            return { error: `${name}: give a whole number` };
          }
          return { value };
        }
        default:
          return { value: text };
      }
    },
  };
}

interface Choice {
  readonly value: JsonValue;
  readonly title: string | undefined;
}

function choicesOf(schema: JsonObject): Choice[] | undefined {
  const values = schema['enum'];
  if (Array.isArray(values)) {
    const names = Array.isArray(schema['enumNames']) ? schema['enumNames'] : [];
    return values.map((value, i) => {
      const title = names[i];
      return { value, title: typeof title === 'string' ? title : undefined };
    });
  }
  const options = schema['oneOf'] ?? schema['anyOf'];
  if (Array.isArray(options) && options.every((o) => isJsonObject(o) && 'const' in o)) {
    return (options as JsonObject[]).map((o) => ({
      value: o['const']!,
      title: typeof o['title'] === 'string' ? o['title'] : undefined,
    }));
  }
  return undefined;
}

function showChoice(choice: Choice, i: number): string {
  const value = showValue(choice.value);
  return choice.title !== undefined && choice.title !== value
    ? `${i + 1}) ${value} (${choice.title})`
    : `${i + 1}) ${value}`;
}

/**
 * The input's lines, one per `next`, kept in order even when they arrive before they
 * are asked for (answers piped in ahead). `next` resolves null at the end of input.
 */
class LineQueue {
  readonly #rl: Interface;
  readonly #output: Writable;
  readonly #interactive: boolean;
  readonly #buffered: string[] = [];
  readonly #waiting: ((line: string | null) => void)[] = [];
  #ended = false;

  constructor(input: Readable, output: Writable, interactive: boolean) {
    this.#output = output;
    this.#interactive = interactive;
    // node:readline is loaded when a command first asks (~1 ms of every start otherwise).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
    const { createInterface } = require('node:readline') as typeof Readline;
    this.#rl = createInterface({ input, output, terminal: interactive });
    this.#rl.on('line', (line) => {
      const waiter = this.#waiting.shift();
      if (waiter !== undefined) waiter(line);
      else this.#buffered.push(line);
    });
    this.#rl.on('close', () => {
      this.#ended = true;
      for (const waiter of this.#waiting.splice(0)) waiter(null);
    });
  }

  next(prompt: string): Promise<string | null> {
    if (this.#interactive) {
      this.#rl.setPrompt(prompt);
      this.#rl.prompt();
    } else {
      this.#output.write(prompt);
    }
    const line = this.#buffered.shift();
    if (line !== undefined) return Promise.resolve(this.#echo(line));
    if (this.#ended) return Promise.resolve(this.#echo(null));
    return new Promise((resolve) => this.#waiting.push((l) => resolve(this.#echo(l))));
  }

  close(): void {
    this.#rl.close();
  }

  // Piped answers are not echoed by a terminal; end the prompt's line so the
  // transcript reads the same.
  #echo(line: string | null): string | null {
    if (!this.#interactive) this.#output.write('\n');
    return line;
  }
}

function showValue(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
