// How a command's state reaches the next command's job without a failed save ever
// costing the last good one: the files it is kept in, the job's save and the shell's
// check after the job. bash-state.ts prints the state; bash-driver.ts says when a job
// restores and saves it.
//
// Two state files take turns: a job restores the current one and saves into the other
// (the spare), so a save that fails part-way (a command's `ulimit -f 0` or `ulimit -n
// 5`, a builtin it disabled, a full /dev/shm, a kill) spoils only the spare. A one-byte
// mark says which file holds the last whole state: `a` or `b`, or `p` while a job that
// armed a save has not finished it. The job writes `p` before its command runs and the
// spare's letter after a save that went through whole; the shell reads the mark after
// each job, takes the spare as current when it names it, and when it still says `p` (or
// anything else) keeps the current file, puts its letter back and says so in the
// command's answer. The mark is written in place (`1<>`, one byte, never truncated), so
// a failed write of it leaves it as it was. The shell's own builtins are never a
// command's (each command runs in a job), so its side of this cannot be broken by one.

import { bashQuote } from './bash-words';

/** Where {@link stateFilesScript} may keep the files. */
export interface StateFilesOptions {
  readonly stateDirs: readonly string[];
  readonly stateName: string;
}

/** The kinds of file a shell keeps, in the order they are made. */
const FILES = ['state', 'spare', 'scratch', 'mark'] as const;

/**
 * Bash that makes the shell's state files, with noclobber (`O_EXCL`) under random names
 * in the first directory where all can be made and the mark written, opens them and
 * unlinks them at once. It sets `__agenttool_fd` (the state a job restores),
 * `__agenttool_sparefd` (where a job saves), `__agenttool_tfd` (scratch),
 * `__agenttool_mfd` (the mark), their letters `__agenttool_slot` and
 * `__agenttool_spare_slot`, and `__agenttool_sdir`; with no such directory, the shell
 * exits with status 71.
 */
export function stateFilesScript(options: StateFilesOptions): string {
  const dirs = options.stateDirs.map(bashQuote).join(' ');
  return `
__agenttool_open() {
  local __agenttool_d __agenttool_p __agenttool_k __agenttool_x
  local -a __agenttool_made
  local -A __agenttool_fdof
  builtin set -C
  for __agenttool_d in ${dirs}; do
    __agenttool_p=$__agenttool_d/.agenttool-${options.stateName}
    __agenttool_made=()
    for __agenttool_k in ${FILES.join(' ')}; do
      { exec {__agenttool_x}>"$__agenttool_p.$__agenttool_k"; } 2>/dev/null || break
      __agenttool_made+=("$__agenttool_p.$__agenttool_k")
      __agenttool_fdof[$__agenttool_k]=$__agenttool_x
    done
    # The mark's page is taken now: the job's and the shell's writes of it are in place.
    if ((\${#__agenttool_made[@]} == ${FILES.length})) &&
      { builtin printf a >&"\${__agenttool_fdof[mark]}"; } 2>/dev/null; then
      command rm -f -- "\${__agenttool_made[@]}"
      builtin set +C
      __agenttool_fd=\${__agenttool_fdof[state]}
      __agenttool_sparefd=\${__agenttool_fdof[spare]}
      __agenttool_tfd=\${__agenttool_fdof[scratch]}
      __agenttool_mfd=\${__agenttool_fdof[mark]}
      __agenttool_slot=a __agenttool_spare_slot=b __agenttool_sdir=$__agenttool_d
      return 0
    fi
    for __agenttool_x in "\${__agenttool_fdof[@]}"; do exec {__agenttool_x}>&-; done
    __agenttool_fdof=()
    ((\${#__agenttool_made[@]} == 0)) || command rm -f -- "\${__agenttool_made[@]}"
  done
  builtin set +C
  builtin printf 'agenttool: no directory to keep the shell state in (tried %s)\\n' ${bashQuote(options.stateDirs.join(', '))} >&2
  exit 71
}
__agenttool_open
`;
}

/**
 * What a job runs first (before its restore): it closes its copies of the shell's state
 * files, which it reaches through the shell's descriptors, so that no command inherits
 * them; where those cannot be reached, it keeps them.
 */
export const CLOSE_STATE_FILES =
  '[ "$__agenttool_fds" = /dev/fd ] || exec {__agenttool_fd}>&- {__agenttool_sparefd}>&- {__agenttool_tfd}>&- {__agenttool_mfd}>&-;';

/**
 * The bash functions of the save: `__agenttool_saving` (arms it), `__agenttool_done`
 * (runs it after the command), `__agenttool_save`, `__agenttool_take` (a state another
 * shell printed becomes this one's) and the shell's `__agenttool_kept` (after a job).
 */
export const SAVE_SCRIPT = `
# The save runs as the command's job ends: through the EXIT trap when it ends early
# (exit, set -e, an interrupt), else right after the command (see __agenttool_done),
# since the command may set an EXIT trap of its own in the place of this one. The mark
# says from now on that a save is due (see bash-save.ts).
__agenttool_saving() {
  [[ -n \${__agenttool_keep-} ]] && builtin return 0
  __agenttool_keep=1
  { builtin printf p 1<>"$__agenttool_fds/$__agenttool_mfd"; } 2>/dev/null
  builtin trap '{ [[ -n \${__agenttool_saved-} ]] || __agenttool_save; } 2>/dev/null' EXIT
}
# After the command (its status in $1): the save, and the status again for the job's
# end, where an EXIT trap the command set runs (with the job's own stderr).
__agenttool_done() {
  if [[ -n \${__agenttool_keep-} ]]; then
    __agenttool_save
    __agenttool_saved=1
  fi
  builtin return "$1" 2>/dev/null || return "$1"
}
# Runs in the command's environment, after it: every step in one list, so that the
# first that fails ends the save (the spare then holds no state anyone restores), and
# none of it ends the job under the command's set -e (each failure is followed by ((1)),
# a success no function or enable -n can take away). A function named builtin, which
# no state keeps (see __agenttool_state), would stand in for every builtin here: it
# goes first (by command, past a function named unset, and silent: a command's own
# function's output is not the command's); the builtins the command disabled (enable
# -n) are back. A repeated
# interrupt must not cut the save short, and a write past the command's ulimit -f must
# fail as a write, not kill the job with SIGXFSZ (the job's status is the command's).
__agenttool_save() {
  { command unset -f builtin; } >/dev/null 2>&1 || ((1))
  builtin enable trap set shopt compgen mapfile declare read printf pwd umask alias local return unset &&
    builtin trap '' INT TERM XFSZ &&
    __agenttool_state >|"$__agenttool_fds/$__agenttool_sparefd" &&
    builtin printf %s "$__agenttool_spare_slot" 1<>"$__agenttool_fds/$__agenttool_mfd" || ((1))
}
# Replaces the state with one another shell printed, and keeps this job from saving.
__agenttool_take() {
  builtin printf %s "$1" >|"$__agenttool_fds/$__agenttool_sparefd" &&
    builtin printf %s "$__agenttool_spare_slot" 1<>"$__agenttool_fds/$__agenttool_mfd" || builtin return 1
  builtin trap - EXIT
  __agenttool_keep=
}
# In the shell, after a job (its status in __agenttool_last): the state the next job
# restores. The spare, when the job saved into it whole; the current one when it saved
# nothing; else the current one too, with its letter back in the mark, and a line in
# the command's answer.
__agenttool_kept() {
  __agenttool_m=
  IFS= builtin read -r -N 1 __agenttool_m <"$__agenttool_fds/$__agenttool_mfd" 2>/dev/null
  [[ $__agenttool_m == "$__agenttool_slot" ]] && return 0
  if [[ $__agenttool_m == "$__agenttool_spare_slot" ]]; then
    __agenttool_m=$__agenttool_fd __agenttool_fd=$__agenttool_sparefd __agenttool_sparefd=$__agenttool_m
    __agenttool_m=$__agenttool_slot __agenttool_slot=$__agenttool_spare_slot __agenttool_spare_slot=$__agenttool_m
    return 0
  fi
  { builtin printf %s "$__agenttool_slot" 1<>"$__agenttool_fds/$__agenttool_mfd"; } 2>/dev/null
  # Why, as far as the shell can tell: its job's status says SIGKILL (an interrupt's
  # last step, say), or it lists what else stops a save.
  if ((__agenttool_last == 137)); then
    __agenttool_m='its job was killed (SIGKILL) before the save'
  else
    __agenttool_m="the command ended its shell before the save (exec, set -n, exit with an EXIT trap of its own, a signal) or left it unable to write it (ulimit -f, ulimit -n, enable -n builtin or enable, a full $__agenttool_sdir)"
  fi
  builtin printf "agenttool: the shell's state after this command could not be saved: %s; the next command starts with the state from before it\\n" "$__agenttool_m"
}
`;
