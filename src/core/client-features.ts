import { type JsonObject } from './json';

/**
 * What a call may ask of the client it is served for, beyond its tools: put a question
 * to the user (`elicitation`), have the client's model write (`sampling`), or list the
 * client's roots (`roots`). MCP names these client capabilities the same way.
 */
export type ClientFeature = 'elicitation' | 'sampling' | 'roots';

/** A part of a sampling message or answer: text, or base64 image or audio data. */
export type SamplingContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'audio'; readonly data: string; readonly mimeType: string };

/** One turn of the conversation a sampling request hands the client's model. */
export interface SamplingMessage {
  /** Who says it: the user, or the model in an earlier turn. */
  readonly role: 'user' | 'assistant';
  /** What is said: one text, image or audio part. */
  readonly content: SamplingContent;
}

/**
 * Which model the client should pick, as hints it may weigh (MCP's model preferences):
 * name fragments in order of preference, and priorities between 0 and 1.
 */
export interface ModelPreferences {
  /** Fragments of model names, most preferred first (`"claude"`, `"sonnet"`). */
  readonly hints?: readonly { readonly name?: string }[];
  /** How much a cheap model matters, from 0 to 1. */
  readonly costPriority?: number;
  /** How much a fast model matters, from 0 to 1. */
  readonly speedPriority?: number;
  /** How much a capable model matters, from 0 to 1. */
  readonly intelligencePriority?: number;
}

/**
 * A request for the client's model to write the next message (MCP
 * `sampling/createMessage`). The client decides which model answers, and may show the
 * request to its user first or refuse it.
 */
export interface SamplingRequest {
  /**
   * Names the request among those the call makes in one round: an MCP 2026-07-28
   * server sends it to the client under this key (`inputRequests`), so a client that
   * knows the tool can answer it by name (also up front, as a question's key can be).
   * Default: `sample_<n>`. Ignored where requests are not keyed
   * (the 2025 era, a local sampler).
   */
  readonly key?: string;
  /** The conversation so far, at least one message; the model writes the next one. */
  readonly messages: readonly SamplingMessage[];
  /** The most tokens the model may write: a whole number, at least 1. */
  readonly maxTokens: number;
  /** A system prompt the client may use (or change, or leave out). */
  readonly systemPrompt?: string;
  /** The sampling temperature the client may use. */
  readonly temperature?: number;
  /** Sequences that end the message when the model writes them. */
  readonly stopSequences?: readonly string[];
  /** Which model the client should pick (hints it may weigh). */
  readonly modelPreferences?: ModelPreferences;
  /** Passed to the client as it is (provider-specific options). */
  readonly metadata?: JsonObject;
}

/** What the client's model wrote. */
export interface SamplingResult {
  /** Who wrote it: the model (`assistant`), as a rule. */
  readonly role: 'user' | 'assistant';
  /** What it wrote: one text, image or audio part. */
  readonly content: SamplingContent;
  /** The model that wrote it, as the client names it. */
  readonly model: string;
  /** Why the model stopped (`endTurn`, `stopSequence`, `maxTokens`, or the client's own word). */
  readonly stopReason?: string;
}

/** A directory or file the client shares with the server (MCP roots): a `file://` URI as a rule. */
export interface Root {
  /** Where it is: a `file://` URI as a rule. */
  readonly uri: string;
  /** A name for people. */
  readonly name?: string;
}

/** Options of a roots listing. */
export interface RootsRequest {
  /**
   * Names the request among those the call makes in one round (see
   * {@link SamplingRequest.key}). Default: `roots_<n>`.
   */
  readonly key?: string;
}
