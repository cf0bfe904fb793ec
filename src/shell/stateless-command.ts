// Which commands cannot change the persistent shell's state, as far as their text shows:
// their jobs need not save it (the save is about half a sandboxed command's time in bash).

/**
 * A first word that names a program, or one of bash's words: no quote, escape,
 * expansion or glob, so bash runs it as written.
 */
const FIRST_WORD = /^[ \t]*([A-Za-z0-9_./:+-]+)(?:[ \t]|$)/;

/**
 * Text after which bash might run something in the shell itself, or assign: a list
 * (`;`, `&&`, `||`, a newline), a background job, a subshell or a group, any expansion
 * (`$`, a backquote, `(`), or a carriage return, which bash takes as part of a word.
 */
const MAY_CHANGE_STATE = /[\n\r;&()$`]|\|\|/;

/**
 * The first word of `command` when its text shows that it cannot change the shell's
 * state: one simple command or a pipeline of simple commands (`|`), whose words expand
 * nothing (no `$`, no backquote, no parenthesis) and whose first word is written plainly.
 * Otherwise `undefined`.
 *
 * The shell still decides with what only it knows (see `__agenttool_arm` in
 * bash-driver.ts): its job saves the state unless that word is a program's name or a
 * builtin that changes nothing (not a function, an alias, a keyword or another
 * builtin), lastpipe and xtrace are off, and no alias is defined when there is a `|`.
 * What a program does cannot change the shell's variables, options or directory.
 */
export function statelessCommandWord(command: string): string | undefined {
  const first = FIRST_WORD.exec(command);
  if (first === null || MAY_CHANGE_STATE.test(command)) return undefined;
  // A redirection beside a brace may be one that names a descriptor: `{fd}>file`
  // assigns `fd`.
  if (/[{}]/.test(command) && /[<>]/.test(command)) return undefined;
  return first[1];
}

/**
 * Bash's builtins that cannot change the shell's state whatever their arguments (with
 * none of them expanded): their jobs need not save it either. `exec` runs a program in
 * the job's place (a job that became it could save nothing) or changes only the job's
 * descriptors, which no state holds. Not `test`: `test -v 'a[x=5]'` evaluates the
 * subscript, and assigns.
 */
export const STATELESS_BUILTINS = ['true', 'false', ':', 'echo', 'exec'] as const;
