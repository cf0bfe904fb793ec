import { randomUUID } from 'node:crypto';
import {
  type ClientCapabilities,
  ElicitResultSchema,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  AgentToolError,
  type Answer,
  CANCELLED_ANSWER,
  compileSchema,
  type Elicitation,
  type Elicitor,
  errorMessage,
  isJsonObject,
  type JsonObject,
  schemaFromJson,
} from '../../core';
import { type ArgumentsCheck, compileGeneral } from './arguments';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The elicitor of one served call, or undefined when the client did not declare the
 * elicitation capability (the call's questions are then answered `cancel`).
 *
 * A form question (`schema`, or neither schema nor URL) is sent as `elicitation/create`
 * with `requestedSchema` (`{"type":"object","properties":{}}` when the question has
 * none); a URL question in URL mode with a fresh `elicitationId`. A mode the client did
 * not offer is answered `cancel` without asking. An accepted form's content is checked
 * against the schema. The request travels with the call (related to it), so over HTTP
 * it reaches the client on the call's own stream.
 */
export function elicitorFor(
  capabilities: ClientCapabilities | undefined,
  extra: Extra,
): Elicitor | undefined {
  const offered = capabilities?.elicitation;
  if (offered === undefined || offered === null) return undefined;
  const url = offered.url !== undefined;
  // An empty capability object (older clients) means form.
  const form = offered.form !== undefined || !url;
  return async (question: Elicitation): Promise<Answer> => {
    const isUrl = question.url !== undefined && question.url !== '';
    if (isUrl ? !url : !form) return CANCELLED_ANSWER;
    const schema = isUrl ? undefined : (question.schema ?? { type: 'object', properties: {} });
    const check = schema === undefined ? undefined : compileForm(schema);
    const params = isUrl
      ? { mode: 'url', message: question.message, url: question.url, elicitationId: randomUUID() }
      : { message: question.message, requestedSchema: schema };
    let result;
    try {
      result = await extra.sendRequest(
        { method: 'elicitation/create', params } as ServerRequest,
        ElicitResultSchema,
        { signal: extra.signal },
      );
    } catch (error) {
      throw new AgentToolError('PROTOCOL', `mcp: elicitation: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    return answerOf(result, check);
  };
}

function compileForm(schema: JsonObject): ArgumentsCheck {
  const subset = schemaFromJson(schema);
  if (subset !== undefined) return compileSchema(subset);
  return compileGeneral(
    schema,
    (reason, cause) =>
      new AgentToolError('INVALID_SCHEMA', `mcp: elicitation schema: ${reason}`, { cause }),
  );
}

function answerOf(
  result: { action: string; content?: Record<string, unknown> | undefined },
  check: ArgumentsCheck | undefined,
): Answer {
  switch (result.action) {
    case 'accept': {
      const content = isJsonObject(result.content) ? result.content : undefined;
      if (check !== undefined) {
        const problem = check(content ?? {});
        if (problem !== undefined) {
          throw new AgentToolError(
            'PROTOCOL',
            `mcp: elicitation answer: ${problem.message.replace(/^invalid arguments: /, '')}`,
          );
        }
      }
      return content === undefined ? { action: 'accept' } : { action: 'accept', content };
    }
    case 'decline':
      return { action: 'decline' };
    case 'cancel':
      return CANCELLED_ANSWER;
    default:
      throw new AgentToolError(
        'PROTOCOL',
        `mcp: elicitation answer: unknown action ${JSON.stringify(result.action)}`,
      );
  }
}
