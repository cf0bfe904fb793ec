import { type Session } from 'agenttool';

/** A client session as a transport would give one: `end()` runs its close listeners. */
export interface TestSession extends Session {
  end(): Promise<void>;
}

/** A session whose end is in the test's hands. */
export function testSession(id: string): TestSession {
  const listeners: (() => void | Promise<void>)[] = [];
  return {
    id,
    onClose: (listener) => void listeners.push(listener),
    end: async () => {
      for (const listener of listeners.splice(0)) await listener();
    },
  };
}
