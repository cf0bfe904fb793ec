import type { Shell } from 'agenttool/shell';

/** Runs a command and aborts it as soon as its output contains `text`. */
export async function runUntil(shell: Shell, command: string, text: string, extra = {}) {
  const controller = new AbortController();
  let seen = '';
  return shell.run(command, {
    signal: controller.signal,
    onOutput: (chunk) => {
      seen += chunk;
      if (seen.includes(text)) controller.abort();
    },
    ...extra,
  });
}
