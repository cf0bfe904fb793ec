import { type ClientCapabilities } from '@modelcontextprotocol/server';
import { AgentToolError, errorMessage, type RootsLister, type Sampler } from '../../../core';
import { type ClientAsk, rootsAsk, samplingAsk } from './client-asks';

/** Sends one request of the server's own to the client, on the call's stream (2025 era). */
export type SendToClient = (request: ClientAsk<unknown>['request']) => Promise<unknown>;

/**
 * The sampler of a call served to a 2025-era client: `sampling/createMessage` sent on
 * the call's stream. Undefined when the client did not declare sampling, so
 * `ctx.sample` throws a MissingCapabilityError and `ctx.sampler` tells the tool before
 * it asks.
 */
export function directSampler(
  capabilities: ClientCapabilities | undefined,
  send: SendToClient,
): Sampler | undefined {
  if (capabilities?.sampling === undefined || capabilities.sampling === null) return undefined;
  return (request) => asked(samplingAsk(request), send);
}

/** The roots lister of a call served to a 2025-era client (`roots/list`); see {@link directSampler}. */
export function directRootsLister(
  capabilities: ClientCapabilities | undefined,
  send: SendToClient,
): RootsLister | undefined {
  if (capabilities?.roots === undefined || capabilities.roots === null) return undefined;
  return (request) => asked(rootsAsk(request), send);
}

async function asked<T>(ask: ClientAsk<T>, send: SendToClient): Promise<T> {
  let response: unknown;
  try {
    response = await send(ask.request);
  } catch (error) {
    throw new AgentToolError('PROTOCOL', `mcpserver: ${ask.feature}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return ask.read(response);
}
