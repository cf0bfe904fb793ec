import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  Server,
  type Transport,
} from '@modelcontextprotocol/server';
import { dispatchRequestsFirst } from '../../dispatch';

const GUARDS = { isJSONRPCRequest, isJSONRPCNotification };

/**
 * The SDK's low-level `Server`, told a request or a notification from a response before
 * it dispatches a message (see {@link dispatchRequestsFirst}: the SDK's order made every
 * request fail two zod schemas, which kept it alive through young collections). Where
 * the transport already had a listener of its own, the SDK's dispatch is kept.
 */
export class RequestFirstServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    const earlier = transport.onmessage;
    await super.connect(transport);
    if (earlier === undefined) dispatchRequestsFirst(this, transport, GUARDS);
  }
}
