import {
  type ClientCapabilities,
  type InputRequest,
  MissingRequiredClientCapabilityError,
} from '@modelcontextprotocol/server';
import {
  AgentToolError,
  type Answer,
  CANCELLED_ANSWER,
  type ClientFeature,
  describeValue,
  type Elicitation,
  goQuote,
  isJsonObject,
  MissingCapabilityError,
  type Root,
  type RootsRequest,
  type SamplingContent,
  type SamplingRequest,
  type SamplingResult,
} from '../../../core';
import { answerOf, inlineParams, type Question, questionOf } from './elicit';

/** The longest key a call may give a request it makes of its client. */
const MAX_KEY_LENGTH = 256;

/**
 * One request a call makes of its client: a question (`elicitation/create`), a turn of
 * its model (`sampling/createMessage`) or its roots (`roots/list`), with how the
 * client's response reads in the call's terms.
 */
export interface ClientAsk<T> {
  readonly feature: ClientFeature;
  /** The key the call gave it (2026-07-28 `inputRequests`); undefined: one is made up. */
  readonly key: string | undefined;
  /** The request as a 2025-era server sends it (a request of its own, on the call's stream). */
  readonly request: { readonly method: InputRequest['method']; readonly params: object };
  /** The request as a 2026-07-28 server sends it back with the call (`inputRequests`). */
  readonly inline: InputRequest;
  /** The response in the call's terms; throws for one that is not an answer to it. */
  read(response: unknown): T;
  /**
   * The answer when the client's next request leaves this one out: `cancel` for a
   * question (nobody chose); an error for the others, which have no such answer.
   */
  unanswered(): T;
  /**
   * Undefined when `capabilities` cover the request, else the error saying which the
   * client did not declare.
   */
  missingFrom(capabilities: ClientCapabilities | undefined): MissingCapabilityError | undefined;
}

/** A question to the user. */
export function elicitationAsk(elicitation: Elicitation): ClientAsk<Answer> {
  const key = checkedKey('elicitation', elicitation.key);
  const question = questionOf(elicitation);
  return {
    feature: 'elicitation',
    key,
    request: { method: 'elicitation/create', params: question.params },
    inline: { method: 'elicitation/create', params: inlineParams(question) },
    read: (response) => answerOf(question, response),
    unanswered: () => CANCELLED_ANSWER,
    missingFrom: (capabilities) => missingElicitation(capabilities, question),
  };
}

/** A turn of the client's model. */
export function samplingAsk(request: SamplingRequest): ClientAsk<SamplingResult> {
  const key = checkedKey('sampling', request.key);
  const params = samplingParams(request);
  return {
    feature: 'sampling',
    key,
    request: { method: 'sampling/createMessage', params },
    inline: { method: 'sampling/createMessage', params } as InputRequest,
    read: samplingResultOf,
    unanswered: () => {
      throw unansweredError('sampling', key);
    },
    missingFrom: (capabilities) =>
      capabilities?.sampling === undefined || capabilities.sampling === null
        ? missing('sampling')
        : undefined,
  };
}

/** The client's roots. */
export function rootsAsk(request: RootsRequest = {}): ClientAsk<readonly Root[]> {
  const key = checkedKey('roots', request.key);
  return {
    feature: 'roots',
    key,
    request: { method: 'roots/list', params: {} },
    inline: { method: 'roots/list', params: {} },
    read: rootsOf,
    unanswered: () => {
      throw unansweredError('roots', key);
    },
    missingFrom: (capabilities) =>
      capabilities?.roots === undefined || capabilities.roots === null
        ? missing('roots')
        : undefined,
  };
}

/**
 * The prefix of the key a request goes under when the call gave none: `elicit_<n>`,
 * `sample_<n>`, `roots_<n>`.
 */
export const AUTO_KEY_PREFIX: Readonly<Record<ClientFeature, string>> = {
  elicitation: 'elicit',
  sampling: 'sample',
  roots: 'roots',
};

/**
 * The JSON-RPC error (MissingRequiredClientCapability, -32021) of a call whose tool
 * failed for want of a capability the client did not declare: what the request fails
 * with in a plain 2026-07-28 call, and what a task ends `failed` with.
 */
export function missingCapabilityError(
  missing: MissingCapabilityError,
): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: requiredCapabilities(missing) },
    missingMessage(missing.capability, missing.mode),
  );
}

/**
 * The error of a request that needs a capability the client did not declare, in the
 * protocol's shape (`requiredCapabilities` of MissingRequiredClientCapability, -32021):
 * `{ sampling: {} }`, `{ elicitation: { url: {} } }`.
 */
export function requiredCapabilities(error: MissingCapabilityError): ClientCapabilities {
  const needed = error.mode === undefined ? {} : { [error.mode]: {} };
  return { [error.capability]: needed };
}

function missing(feature: ClientFeature, mode?: 'form' | 'url'): MissingCapabilityError {
  return new MissingCapabilityError(
    feature,
    missingMessage(feature, mode),
    mode === undefined ? {} : { mode },
  );
}

/**
 * The server's words for a call that needs a capability the client did not declare
 * (the message of MissingRequiredClientCapability): what is missing, and that a client
 * declaring it can make the call.
 */
export function missingMessage(feature: ClientFeature, mode?: string): string {
  const what =
    mode === undefined
      ? `the ${feature} capability`
      : `${mode === 'url' ? 'URL' : mode} elicitation (clientCapabilities.elicitation.${mode})`;
  return `mcpserver: ${feature}: the client did not declare ${what}, which this call needs; a client that declares it can make the call`;
}

/** A client naming neither form nor URL elicitation takes forms (as the spec says). */
function missingElicitation(
  capabilities: ClientCapabilities | undefined,
  question: Question,
): MissingCapabilityError | undefined {
  const offer = capabilities?.elicitation;
  if (offer === undefined || offer === null) return missing('elicitation');
  if (question.params.mode === 'url')
    return offer.url === undefined ? missing('elicitation', 'url') : undefined;
  return offer.form !== undefined || offer.url === undefined
    ? undefined
    : missing('elicitation', 'form');
}

function unansweredError(feature: 'sampling' | 'roots', key: string | undefined): AgentToolError {
  const named = key === undefined ? '' : ` (${goQuote(key)})`;
  return new AgentToolError(
    'PROTOCOL',
    `mcpserver: ${feature}: the client came back without the answer to this request${named}`,
  );
}

/** A key a call gave, checked; undefined when it gave none. */
function checkedKey(feature: ClientFeature, key: unknown): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key === '' || key.length > MAX_KEY_LENGTH) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcpserver: ${feature}: key must be a non-empty string of at most ${MAX_KEY_LENGTH} characters, got ${describeValue(key)}`,
    );
  }
  return key;
}

/** The wire params of a sampling request: what the tool gave, without its key. */
function samplingParams(request: SamplingRequest): Record<string, unknown> {
  const given: unknown = request?.messages;
  if (!Array.isArray(given) || given.length === 0) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      'mcpserver: sampling: messages must be a non-empty list of { role, content }',
    );
  }
  if (
    typeof request.maxTokens !== 'number' ||
    !Number.isInteger(request.maxTokens) ||
    request.maxTokens < 1
  ) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcpserver: sampling: maxTokens must be a whole number of tokens, at least 1, got ${describeValue(request.maxTokens)}`,
    );
  }
  const { key: _key, ...params } = request;
  const messages = request.messages.map((message): object => ({ ...message }));
  return { ...params, messages };
}

function samplingResultOf(response: unknown): SamplingResult {
  if (!isJsonObject(response)) throw badAnswer('sampling', response, 'a sampling result');
  const { role, model, stopReason } = response;
  if (role !== 'assistant' && role !== 'user') {
    throw badAnswer('sampling', role, 'a role ("assistant" or "user")');
  }
  if (typeof model !== 'string') throw badAnswer('sampling', model, "the model's name");
  const content =
    Array.isArray(response.content) && response.content.length === 1
      ? (response.content[0] as unknown)
      : response.content;
  return {
    role,
    content: samplingContentOf(content),
    model,
    ...(typeof stopReason === 'string' ? { stopReason } : {}),
  };
}

function samplingContentOf(content: unknown): SamplingContent {
  if (isJsonObject(content)) {
    if (content.type === 'text' && typeof content.text === 'string') {
      return { type: 'text', text: content.text };
    }
    if (
      (content.type === 'image' || content.type === 'audio') &&
      typeof content.data === 'string' &&
      typeof content.mimeType === 'string'
    ) {
      return { type: content.type, data: content.data, mimeType: content.mimeType };
    }
  }
  throw badAnswer('sampling', content, 'one text, image or audio content part');
}

function rootsOf(response: unknown): readonly Root[] {
  const roots = isJsonObject(response) ? response.roots : undefined;
  if (!Array.isArray(roots)) throw badAnswer('roots', response, 'a roots list { roots: [...] }');
  return roots.map((root: unknown) => {
    if (!isJsonObject(root) || typeof root.uri !== 'string') {
      throw badAnswer('roots', root, 'a root { uri, name? }');
    }
    return typeof root.name === 'string' ? { uri: root.uri, name: root.name } : { uri: root.uri };
  });
}

function badAnswer(feature: 'sampling' | 'roots', value: unknown, wanted: string): AgentToolError {
  return new AgentToolError(
    'PROTOCOL',
    `mcpserver: ${feature} answer: the client answered with ${describeValue(value)}, not ${wanted}`,
  );
}

/** True for a capability the client declared. */
export function offers(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** One request a run made of its client, and the tool waiting for its answer. */
export interface Pending {
  readonly ask: ClientAsk<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** What a run makes of its client in one round, by the key it goes under. */
export type Round = Map<string, Pending>;
