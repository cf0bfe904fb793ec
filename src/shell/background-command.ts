import { bashQuote } from './bash-words';

/**
 * `command` started in the background by the job that runs it, its output (stdout and
 * stderr) in a new file of the shell's temporary folder, its input /dev/null: the job
 * ends at once, printing the background's process group (the job's, which a later
 * command stops with `kill -- -<group>`) and the file. The command runs in a subshell,
 * as `command &` runs it, so what it changes of the shell (the working directory,
 * variables) does not persist; neither does anything of this wrapper's. The file, made
 * by mktemp, is written with `>|`: a shell with `noclobber` set would refuse `>`.
 */
export function inBackground(command: string): string {
  return [
    '__agenttool_group=$BASHPID',
    '(',
    // No suffix after the Xs: BSD's mktemp (macOS) replaces trailing ones only.
    '  __agenttool_log=$(command mktemp "${TMPDIR:-/tmp}/background-XXXXXXXX") || exit',
    `  ( builtin eval ${bashQuote(command)} ) >|"$__agenttool_log" 2>&1 </dev/null &`,
    '  builtin printf \'Started in the background as process group %s; its output (stdout and stderr) goes to %s: read it with tail, and stop it with kill -- -%s.\\n\' "$__agenttool_group" "$__agenttool_log" "$__agenttool_group"',
    ')',
    // The status the start ended with (a file that could not be made fails the call).
    '__agenttool_status=$?',
    'builtin unset -v __agenttool_group',
    'builtin eval "builtin unset -v __agenttool_status; (builtin exit $__agenttool_status)"',
  ].join('\n');
}
