import {
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
} from '@modelcontextprotocol/server';
import {
  AgentToolError,
  type Answer,
  CANCELLED_ANSWER,
  describeValue,
  type Elicitation,
  type Elicitor,
  errorMessage,
  goQuote,
  isForeignSchema,
  isJsonObject,
  type JsonObject,
} from '../../../core';
import { randomHex } from '../../random';
import { type ArgumentsCheck, compileServedCheck, foreignCheck } from '../../validation';

/** What a client offered for elicitation (`capabilities.elicitation`), when it offered any. */
export type ElicitationOffer = NonNullable<ClientCapabilities['elicitation']>;

/** An elicitation as MCP carries it, with the check its answer must pass. */
export interface Question {
  readonly params: ElicitRequestFormParams | ElicitRequestURLParams;
  readonly check: ArgumentsCheck | undefined;
}

// A question with no fields is a confirmation, which MCP asks as a form with none: the
// schema is required in form mode, and a client may refuse a form without one.
const NO_FIELDS: JsonObject = { type: 'object', properties: {} };

/**
 * Maps a tool's question to MCP's: a URL makes it a URL question (mode `url`, a fresh
 * `elicitationId`); anything else is a form, with `{"type":"object","properties":{}}`
 * when it has no schema. Throws `mcpserver: elicitation schema: <why>` for a schema
 * that cannot be used.
 */
export function questionOf(question: Elicitation): Question {
  if (question.url !== undefined && question.url !== '') {
    return {
      params: {
        mode: 'url',
        message: question.message,
        url: question.url,
        elicitationId: randomHex(16),
      },
      check: undefined,
    };
  }
  const schema = question.schema ?? NO_FIELDS;
  return {
    params: {
      mode: 'form',
      message: question.message,
      requestedSchema: schema as ElicitRequestFormParams['requestedSchema'],
    },
    check: question.schema === undefined ? undefined : compileForm(question.schema),
  };
}

/** True when the client takes a question of this mode (a client naming neither takes forms). */
export function offers(offer: ElicitationOffer, question: Question): boolean {
  if (question.params.mode === 'url') return offer.url !== undefined;
  return offer.form !== undefined || offer.url === undefined;
}

/**
 * The client's answer in core terms. An accepted form's content is checked against the
 * question's schema: the client is meant to, and the tool should not have to trust that
 * it did. Throws `mcpserver: elicitation answer: <why>` for an answer that is off the
 * schema or has an unknown action.
 */
export function answerOf(question: Question, result: unknown): Answer {
  if (!isJsonObject(result) || typeof result.action !== 'string') {
    throw new AgentToolError(
      'PROTOCOL',
      `mcpserver: elicitation answer: the client answered with ${describeValue(result)}, not an elicitation result`,
    );
  }
  switch (result.action) {
    case 'decline':
      return { action: 'decline' };
    case 'cancel':
      return CANCELLED_ANSWER;
    case 'accept':
      break;
    default:
      throw new AgentToolError(
        'PROTOCOL',
        `mcpserver: elicitation answer: unknown action ${typeof result.action === 'string' ? goQuote(result.action) : JSON.stringify(result.action)}`,
      );
  }
  const content = result.content;
  if (content === undefined || content === null) return { action: 'accept' };
  if (!isJsonObject(content)) {
    throw new AgentToolError(
      'PROTOCOL',
      `mcpserver: elicitation answer: content is ${describeValue(content)}, not an object`,
    );
  }
  const problem = question.check?.(content);
  if (problem !== undefined) {
    throw new AgentToolError(
      'PROTOCOL',
      `mcpserver: elicitation answer: ${problem.message.replace(/^invalid arguments: /, '')}`,
    );
  }
  return { action: 'accept', content };
}

/**
 * The elicitor of a call served to a 2025-era client, which the server asks with a
 * request of its own while the call runs (`ask` sends `elicitation/create` on the
 * call's stream). Undefined when the client offered no elicitation: the call's
 * questions are then answered `cancel`. A mode the client did not offer is answered
 * `cancel` without asking.
 */
export function directElicitor(
  offer: ElicitationOffer | undefined,
  ask: (params: Question['params']) => Promise<unknown>,
): Elicitor | undefined {
  if (offer === undefined || offer === null) return undefined;
  return async (elicitation: Elicitation): Promise<Answer> => {
    const question = questionOf(elicitation);
    if (!offers(offer, question)) return CANCELLED_ANSWER;
    let result: unknown;
    try {
      result = await ask(question.params);
    } catch (error) {
      throw new AgentToolError('PROTOCOL', `mcpserver: elicitation: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    return answerOf(question, result);
  };
}

function compileForm(schema: JsonObject): ArgumentsCheck {
  // Checked as the Go binding checks it (google/jsonschema-go), in its words.
  const fail = (reason: string, cause?: unknown): Error =>
    new AgentToolError('INVALID_SCHEMA', `mcpserver: elicitation schema: ${reason}`, { cause });
  // A remote server's question, passed on (a composition): it must hold nothing up.
  if (isForeignSchema(schema)) {
    return foreignCheck(schema, () => compileServedCheck(schema, fail, { linearPatterns: true }));
  }
  return compileServedCheck(schema, fail);
}

/**
 * A question's params as they go with a 2026-07-28 answer (a call's `inputRequests`, a
 * task's): no `elicitationId`, which only the 2025 wire's own request needs.
 */
export function inlineParams(question: Question): Question['params'] {
  if (question.params.mode !== 'url') return question.params;
  const { elicitationId: _omitted, ...params } = question.params;
  return params as Question['params'];
}
