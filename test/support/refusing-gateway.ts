import * as http from 'node:http';
import { listenOnLoopback } from './loopback-http';

/** A gateway in front of an MCP endpoint that refuses its POSTs while asked to. */
export interface RefusingGateway {
  /** The gateway's MCP endpoint. */
  readonly url: string;
  /** While set, each POST is answered with this status (and Retry-After, when given). */
  refusing: { readonly status: 429 | 503; readonly retryAfter?: string } | undefined;
  /** What reached the gateway: POSTs refused, POSTs passed on, DELETEs. */
  readonly seen: { refused: number; passed: number; deletes: number };
  close(): Promise<void>;
}

/**
 * A gateway on 127.0.0.1 passing each request on to `target` (an MCP endpoint's URL),
 * but answering POSTs with a plain-text refusal while `refusing` is set, as a rate
 * limiter in front of a server does.
 */
export async function refusingGateway(target: string): Promise<RefusingGateway> {
  const to = new URL(target);
  const seen = { refused: 0, passed: 0, deletes: 0 };
  const gateway: { refusing: RefusingGateway['refusing'] } = { refusing: undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'DELETE') seen.deletes++;
      const refusal = gateway.refusing;
      if (req.method === 'POST' && refusal !== undefined) {
        seen.refused++;
        res.writeHead(refusal.status, {
          'content-type': 'text/plain',
          ...(refusal.retryAfter === undefined ? {} : { 'retry-after': refusal.retryAfter }),
        });
        res.end(refusal.status === 429 ? 'Too Many Requests' : 'Service Unavailable');
        return;
      }
      if (req.method === 'POST') seen.passed++;
      const forward = http.request(
        {
          host: to.hostname,
          port: to.port,
          path: to.pathname,
          method: req.method,
          headers: { ...req.headers, host: to.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  const listening = await listenOnLoopback(server);
  return Object.assign(gateway, { url: listening.url, seen, close: listening.close });
}
