import { createConnection, createServer, type Server, type Socket } from 'node:net';

// Tests of a timer that fires late: Node runs due timers before it polls for input, so
// input that came while the process was busy is read after them unless the code waits.

/** Keeps this thread busy for `ms`, as a long GC pause or a descheduled process would. */
export function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: nothing runs meanwhile
  }
}

/** Two ends of a unix socket of this process's own, listening at `path`. */
export interface SocketPair {
  readonly server: Server;
  /** What is written here is input for `reader`, there to read as soon as it is written. */
  readonly writer: Socket;
  readonly reader: Socket;
  close(): void;
}

/** A {@link SocketPair} at `path` (a socket file the caller's folder holds). */
export async function socketPair(path: string): Promise<SocketPair> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const writer = createConnection(path);
  await new Promise<void>((resolve) => writer.once('connect', resolve));
  const reader = await accepted;
  return {
    server,
    writer,
    reader,
    close: () => {
      writer.destroy();
      reader.destroy();
      server.close();
    },
  };
}
