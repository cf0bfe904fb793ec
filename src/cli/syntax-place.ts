/** Where a file a module load read is written wrong, as Node says it. */
export interface SyntaxPlace {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * The place of a syntax error a CommonJS load threw: Node writes it as its stack's first
 * lines (`/path/file.js:2`, the line's text, a caret under the column) rather than in
 * its message, so the message alone names no file; the file is often not the one given
 * but one it requires. Undefined for any other error (an ES module's syntax error
 * carries no place).
 */
export function syntaxPlace(error: unknown): SyntaxPlace | undefined {
  if (!(error instanceof SyntaxError)) return undefined;
  const [head = '', , caret = ''] = (error.stack ?? '').split('\n', 3);
  const place = /^((?:file:\/\/)?\/.*|[A-Za-z]:\\.*):(\d+)$/.exec(head);
  if (place === null) return undefined;
  const column = caret.indexOf('^');
  return {
    file: place[1]!.replace(/^file:\/\//, ''),
    line: Number(place[2]),
    column: column < 0 ? 1 : column + 1,
  };
}
