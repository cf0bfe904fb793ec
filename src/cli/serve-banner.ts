/**
 * The lines `serve` prints as it starts, below its first: the tools and what confines
 * them. A composed server's tools are named and described as it chose, so what they say
 * is shown safe (see terminal-text.ts).
 */
import { confinementOf } from './list';
import { type Tool } from './public-api';
import { terminalSafe } from './terminal-text';

/**
 * The sandbox line of the banner: `none of its own` when no tool says a call runs
 * confined, else which tools run confined by what (as each answers for a call with
 * only its required arguments), and which do not.
 */
export function sandboxLine(tools: readonly Tool[]): string {
  const confined = new Map<string, string[]>();
  const open: string[] = [];
  for (const tool of tools) {
    let confinement;
    try {
      confinement = confinementOf(tool);
    } catch {
      confinement = { confined: false, by: '' };
    }
    const name = terminalSafe(tool.name);
    if (!confinement.confined) open.push(name);
    else {
      const by = confinement.by === '' ? 'a sandbox it does not name' : confinement.by;
      confined.set(by, [...(confined.get(by) ?? []), name]);
    }
  }
  if (confined.size === 0) {
    return '  sandbox: none of its own: the tools run with the rights of this process\n';
  }
  const parts = [...confined].map(([by, names]) => `${names.join(', ')} confined by ${by}`);
  if (open.length > 0) parts.push(`${open.join(', ')} not confined`);
  return `  sandbox: ${parts.join('; ')}\n`;
}

/** The tools, one a line: name and the first line of the description. */
export function toolLines(tools: readonly Tool[]): string {
  // A composed server's tools are named and described as it chose: shown safe.
  const names = tools.map((t) => terminalSafe(t.name));
  const width = Math.max(0, ...names.map((name) => name.length));
  return tools
    .map((t, i) => {
      const text = terminalSafe(firstSentence(t.description));
      return `  ${names[i]!.padEnd(width)}  ${text.trim() === '' ? '(no description)' : text}\n`;
    })
    .join('');
}

function firstSentence(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
