/**
 * The bash side of {@link Shell}: the script the persistent bash runs once at start (it
 * ends in the loop that runs the commands; what the driver writes for each command is
 * in command-message.ts), and the signaller that interrupts commands.
 *
 * Why it is shaped this way: each command must run in its own process group, so that an
 * interrupt (SIGINT to that group) reaches the command and everything it started but
 * never the shell. The persistent bash therefore runs with job control on (`set -m`) and
 * starts each command as one job: a subshell, whose pid is the group's id. A subshell
 * cannot change its parent's state, so it carries the state itself: before the command
 * it restores what the previous command left (working directory and stack, variables and their
 * attributes, functions, aliases, `set` and `shopt` options, umask) from a state file,
 * and on exit (normal, `exit`, `set -e`, or an interrupt) it saves it again, unless the
 * command's text and the shell's names show that it cannot have changed it (a program
 * with arguments that expand nothing, say: see stateless-command.ts). It saves into a
 * second file, which the shell takes as the state only once the job says the save went
 * through whole; a save that fails keeps the state from before the command, and the
 * command's answer says so (bash-save.ts).
 *
 * Speed: a command costs one fork (the job), and both the fork and the state's restore
 * are made ahead: as soon as a job has ended, the shell forks the next one, which
 * restores the state and waits for its command on the shell's input. That work is done
 * while the driver hands the previous result on, and a command costs what is left:
 * reading it, running it, saving the state when it may have changed, and the end line.
 * A program alone that cannot change the state is run by exec, as `bash -c` runs its
 * last command: the job becomes it. Saving and restoring use builtins only: what a
 * builtin prints is captured through a scratch file rather than a command substitution,
 * which would fork. The files live on a memory file system where
 * there is one (`/dev/shm`; inside a sandbox, its private one): ext4 flushes a file that
 * is truncated and rewritten, which cost about 10 ms a command.
 *
 * Nothing is left behind: the state, scratch and mark files are made under random names with
 * O_EXCL (noclobber), opened, and unlinked at once; they vanish with the shell however
 * it ends, SIGKILL included. Only the persistent shell holds them open: a job closes its
 * copies first thing, so no command inherits them, and reaches them through the shell's
 * descriptors (`/proc/<shell>/fd/N`; where there is no /proc, its own `/dev/fd/N`,
 * left open).
 *
 * Everything the shell tells us travels on stdout, in lines that start with a marker
 * (`<marker> R`, `<marker> S <pgid>`, `<marker> E <status>`), so the order of output and
 * "the command ended" is the order of the one pipe. Each marker is random, used once,
 * and never visible to a command before it matters: the start marker is the first thing
 * the job prints, before the command runs, and the end marker is read by bash from its
 * input only after the job has ended. The job reads its command up to the NUL that ends
 * it and no further (bash reads a line or up to a delimiter a byte at a time from a pipe
 * for that reason: POSIX requires a shell not to read ahead of the command it runs; the
 * job reads the command's counted length in one go, which also stops there), then takes
 * /dev/null as its input, so the end marker is never in the job's memory nor within its
 * reach. A command's output can therefore neither end its own call early nor fake the
 * start of another.
 *
 * Interrupts go through a signaller (signaller.ts), which the script starts as a job of
 * the shell reading descriptor 3 unless the shell's launch runs one of its own.
 */

import { CLOSE_STATE_FILES, SAVE_SCRIPT } from './bash-save';
import { stateScript } from './bash-state';
import { bashQuote } from './bash-words';
import { COUNT_DIGITS, HEAD_LENGTH, MARKER_LENGTH } from './command-message';
import { JOB_END_SCRIPT } from './bash-job-end';
import { KILL_SESSION, SIGNALLER } from './signaller';
import { STATELESS_BUILTINS } from './stateless-command';

/** How the persistent bash sets itself up; see {@link initScript}. */
export interface InitOptions {
  /** Printed as `<readyMarker> R <pid>` once the shell is ready. */
  readonly readyMarker: string;
  /**
   * Directories for the state and scratch files, tried in order; the first where a
   * file can be made is used. A memory file system first (see the file's comment).
   */
  readonly stateDirs: readonly string[];
  /** A random name stem for those files; they are unlinked as soon as they are open. */
  readonly stateName: string;
  /** Bash lines run first, before anything is recorded as the shell's own state. */
  readonly prelude?: string;
  /** Start the signaller on descriptor 3 (false when a process of its own does it). */
  readonly signallerOnFd3: boolean;
  /**
   * The names of the variables the shell's owner gave it; the others it starts with
   * were set by its sandbox or container, and are left out of a portable state.
   */
  readonly given?: readonly string[];
}

/**
 * The script the persistent bash runs once: it defines the helpers, opens its state,
 * starts the signaller when descriptor 3 is open, and ends by printing
 * `<readyMarker> R <pid>`, where `<pid>` is the shell's own pid in its PID namespace.
 */
export function initScript(options: InitOptions): string {
  const definitions = `
set -m
set +o history 2>/dev/null
shopt -s expand_aliases
${options.prelude ?? ''}
__agenttool_last=0
__agenttool_ret() { return "$1"; }
# With xtrace on, the first thing of the command's eval (see SERVE_LINE): returns $1 and,
# as it returns, turns xtrace on, through a RETURN trap (which keeps $?; a job starts
# with none of the command's, as traps are not kept from one command to the next).
# Neither this call nor the eval is traced, so the trace shows the command's lines
# alone, not the line builtin eval '<the command>' first.
__agenttool_xret() {
  builtin trap 'builtin trap - RETURN; builtin unset -v __agenttool_xp; builtin set -x' RETURN
  return "$1"
}
__agenttool_utf8=$'\\xe2\\x82\\xac\\xf0\\x9f\\x98\\x80'
${stateScript(options)}
# Bash's builtins and keywords, but for those that change nothing: a command whose first
# word is one of them may change the state (see __agenttool_arm).
declare -A __agenttool_stateful=()
builtin compgen -b >|"$__agenttool_fds/$__agenttool_tfd"
builtin compgen -k >>"$__agenttool_fds/$__agenttool_tfd"
builtin mapfile -t __agenttool_names <"$__agenttool_fds/$__agenttool_tfd"
for __agenttool_n in "\${__agenttool_names[@]}"; do __agenttool_stateful[$__agenttool_n]=1; done
declare -A __agenttool_stateless=()
for __agenttool_n in ${STATELESS_BUILTINS.map(bashQuote).join(' ')}; do
  builtin unset -v "__agenttool_stateful[$__agenttool_n]"
  __agenttool_stateless[$__agenttool_n]=1
done
unset -v __agenttool_names __agenttool_n
# The job's wait for its command (see command-message.ts): the start marker and the two
# lengths of what follows up to the NUL, a head of fixed length; then that text, the
# command's first word's line and the command, in one read of as many characters as the
# locale counts there (the lengths in code points and in bytes); then the rest up to the
# NUL, a byte at a time (nothing when the length was right). Nothing after the NUL is
# taken: the end marker stays for the shell. bash reads a pipe or socket a byte at a
# time for a line or up to a delimiter (POSIX: no read past what the command needs),
# which cost about half a microsecond a byte; a read of a given count takes it whole,
# and still never reads past it. The count is one the locale can only under-run (see
# __agenttool_count; in any other locale it is all read up to the NUL, as before: a
# count too high would take the end marker). A read that reads fewer characters
# than the text holds (an invalid sequence read as one character per byte) leaves
# the rest to the read up to the NUL. Then the command's input is /dev/null, since the
# shell's is this channel. The state is restored by then, so what the user set must not
# change how the command is read: TMOUT, when set, would end the wait (a timeout of 31
# years overrides it); a read-only IFS cannot be blanked for the read (bash then trims
# the command's outer blanks, which does not change what it does); and no function named
# exec is ever restored (see __agenttool_state), so the channel is let go of here.
__agenttool_next() {
  __agenttool_t=()
  [[ -z \${TMOUT-} ]] || __agenttool_t=(-t 999999999)
  if [[ \${IFS@a} == *r* ]]; then
    builtin read "\${__agenttool_t[@]}" -r -N ${HEAD_LENGTH} __agenttool_sm || return
    __agenttool_count
    __agenttool_c=
    ((__agenttool_n == 0)) || builtin read "\${__agenttool_t[@]}" -r -N "$__agenttool_n" __agenttool_c || return
    builtin read "\${__agenttool_t[@]}" -r -d '' __agenttool_w || return
  else
    IFS= builtin read "\${__agenttool_t[@]}" -r -N ${HEAD_LENGTH} __agenttool_sm || return
    __agenttool_count
    __agenttool_c=
    ((__agenttool_n == 0)) || IFS= builtin read "\${__agenttool_t[@]}" -r -N "$__agenttool_n" __agenttool_c || return
    IFS= builtin read "\${__agenttool_t[@]}" -r -d '' __agenttool_w || return
  fi
  exec </dev/null
  __agenttool_c+=$__agenttool_w
  __agenttool_w=\${__agenttool_c%%$'\\n'*}
  __agenttool_w=\${__agenttool_w#:}
  __agenttool_c=\${__agenttool_c#*$'\\n'}
  __agenttool_sm=\${__agenttool_sm%% *}
}
# How many characters of the text before the NUL to read in one go (see
# __agenttool_next), from the head's lengths: its code points where the locale reads
# UTF-8 (the euro sign and an emoji are two characters to it, where any other
# multibyte encoding makes more of their seven bytes), its bytes in the C or POSIX
# locale (told by the name in effect: no count of characters tells a single-byte
# encoding from every multibyte one, some of which read two bytes of UTF-8 as one
# character), else 0.
__agenttool_count() {
  __agenttool_n=0
  if ((\${#__agenttool_utf8} == 2)); then
    __agenttool_n=$((16#\${__agenttool_sm:${MARKER_LENGTH + 1}:${COUNT_DIGITS}}))
  else
    # By test, which nocasematch (a user's shopt, restored by now) leaves exact: a name
    # \`c\` that failed to set would else pass for C, in the locale it left.
    __agenttool_l=\${LC_ALL:-\${LC_CTYPE:-\${LANG:-C}}}
    if builtin test "$__agenttool_l" = C || builtin test "$__agenttool_l" = POSIX; then
      __agenttool_n=$((16#\${__agenttool_sm:${MARKER_LENGTH + 2 + COUNT_DIGITS}:${COUNT_DIGITS}}))
    fi
  fi
}
# Where the command starts: the saved directory, which the restore entered. Since the
# job waited for its command, checked again now: replaced meanwhile, it is entered anew;
# gone (then or since), the command starts in the shell's own directory and is told so.
__agenttool_here() {
  if [[ -z $__agenttool_gone ]] && ! [[ . -ef $PWD ]]; then
    # cd sets OLDPWD: the command sees the one the previous command left.
    __agenttool_o=\${OLDPWD-} __agenttool_os=\${OLDPWD+set}
    builtin cd -- "$PWD" 2>/dev/null || {
      __agenttool_gone=$PWD
      builtin cd -- "$__agenttool_home" 2>/dev/null
    }
    if [[ -n $__agenttool_os ]]; then OLDPWD=$__agenttool_o; else builtin unset -v OLDPWD; fi
  fi
  [[ -n $__agenttool_gone ]] || return 0
  # The state moves here: saved, whatever the command.
  __agenttool_saving
  builtin printf 'agenttool: the working directory %s is gone; staying in %s\\n' "$__agenttool_gone" "$PWD"
  __agenttool_gone=
}
# Once the command is read: arms the save. The job's INT and TERM traps (set before it
# waited) end the command line through exit, so the state is saved (bash alone would go
# on with the next command when the foreground program survived the signal); a program
# the job becomes (below) takes the signal itself, as under bash -c. No save is armed
# when the command cannot change the state: the driver found its text plain (its start
# line then ends in the command's first word: see stateless-command.ts), and here that
# word names a program or a builtin that changes nothing (not a function, an alias, a
# keyword or another builtin), lastpipe is off, xtrace is off (PS4 is expanded before
# the command, and may assign), and no alias is defined when the command holds a | (eval
# expands an alias after a |, and one that holds a ; runs its rest in the job). The
# state is then the one the restore read.
__agenttool_arm() {
  if [[ -n $__agenttool_w ]]; then
    if [[ -z \${__agenttool_stateful[$__agenttool_w]-} && -z \${BASH_ALIASES[$__agenttool_w]+set} ]] &&
      [[ $__agenttool_c != *'|'* || \${#BASH_ALIASES[@]} == 0 ]] &&
      [[ $__agenttool_want != *xtrace* ]] &&
      [[ $__agenttool_fnames != *" $__agenttool_w "* && $__agenttool_w != __agenttool_* ]] &&
      ! builtin shopt -q lastpipe; then
      # A program alone (no |) becomes the job itself: exec, one fork and one process's
      # end fewer, as bash -c does with its last command. Not with an argument list near
      # the kernel's limit for one argument (a failed exec words its error otherwise).
      if [[ $__agenttool_c != *'|'* ]] && ((\${#__agenttool_c} < 65536)) &&
        [[ -z \${__agenttool_stateless[$__agenttool_w]-} ]] && __agenttool_runnable "$__agenttool_w"; then
        __agenttool_exec=1
      fi
      return 0
    fi
  fi
  __agenttool_saving
}
# Whether the exec builtin would run the program $1 names as bash does, with no error of
# its own (which bash -c words otherwise: the file's full path, and a second line for
# some): a file found and executable that is a machine binary, or a script whose #!
# names an interpreter that is there (a CRLF line ending, say, leaves it missing). The
# file becomes the program's $_, as bash gives it.
__agenttool_runnable() {
  if [[ $1 == */* ]]; then
    __agenttool_path=$1
  else
    builtin hash -- "$1" 2>/dev/null || return 1
    __agenttool_path=\${BASH_CMDS[$1]-}
  fi
  [[ -f $__agenttool_path && -x $__agenttool_path ]] || return 1
  builtin read -r -N 256 __agenttool_h <"$__agenttool_path" 2>/dev/null
  [[ $__agenttool_h == $'\\x7f'ELF* ]] && return 0
  [[ $__agenttool_h == '#!'* ]] || return 1
  __agenttool_h=\${__agenttool_h%%$'\\n'*}
  __agenttool_h=\${__agenttool_h#'#!'}
  __agenttool_h=\${__agenttool_h#"\${__agenttool_h%%[! $'\\t']*}"}
  __agenttool_h=\${__agenttool_h%%[ $'\\t']*}
  [[ -f $__agenttool_h && -x $__agenttool_h ]]
}
${SAVE_SCRIPT}
${JOB_END_SCRIPT}
__agenttool_gone=
__agenttool_home=$PWD
# The names of the user's functions (a saved state sets them; see __agenttool_state).
__agenttool_fnames=' '
# The set -o options a job runs with: its own, without job control (see SERVE_LINE).
__agenttool_want=:$SHELLOPTS:
__agenttool_want=\${__agenttool_want/:monitor:/:}
__agenttool_want=\${__agenttool_want#:}
__agenttool_want=\${__agenttool_want%:}
${options.signallerOnFd3 ? SIGNALLER : KILL_SESSION}
${
  options.signallerOnFd3
    ? `if { : <&3; } 2>/dev/null; then
  ( __agenttool_signaller 3 ) </dev/null >/dev/null 2>&1 &
  exec 3<&-
fi`
    : ''
}
# $! of the first command must not be the signaller or the sandbox's network bridge
# (\`kill $!\` would end it): an ended, reaped process takes its place.
: </dev/null >/dev/null 2>&1 &
builtin wait "$!"
builtin printf '%s R %d\\n' ${bashQuote(options.readyMarker)} "$$"
`;
  return `${SERVE_LINE}\n${definitions}\0`;
}

/**
 * The first line bash reads: it takes the rest of the script (up to a NUL), runs it,
 * then loops. Each job is forked, and restores the state, before its command arrives:
 * that work is done while the driver hands the previous result on, and a command costs
 * what is left (reading it, running it, saving the state when it may have changed, the
 * end line). The loop is on the script's first line and at its top level, not in a
 * function, so that the command's errors read as they would from `bash -c` (`bash:
 * line 2: x: command not found`: bash names the function's source, `main`, and counts
 * lines from the line the `eval` is on), and the state's `declare` makes its variables
 * global.
 */
const SERVE_LINE = [
  `IFS= builtin read -r -d '' __agenttool_init || builtin exit 70`,
  'builtin eval "$__agenttool_init"',
  'builtin unset -v __agenttool_init',
  [
    'while :; do (',
    // Job control off, as under `bash -c`; turning it on first makes bash take the
    // job's group as its own (else `kill %1` signals the whole job, the command too).
    'builtin set -m; builtin set +m;',
    CLOSE_STATE_FILES,
    'builtin . "$__agenttool_fds/$__agenttool_fd" >/dev/null 2>&1;',
    // From here an interrupt ends the job through exit (see __agenttool_arm); set before
    // the wait, so that the command's path does not pay for it.
    "builtin trap 'exit 130' INT; builtin trap 'exit 143' TERM;",
    // No command comes (the driver is gone): end without saving anything.
    '__agenttool_next || builtin exit 0;',
    '__agenttool_arm;',
    `builtin printf '%s S %d\\n' "$__agenttool_sm" "$BASHPID";`,
    '__agenttool_here;',
    // A program alone, when the job saves nothing: the job becomes it (see
    // __agenttool_arm), with the set -o options the command starts with.
    'if [[ -n ${__agenttool_exec-} && -z ${__agenttool_keep-} ]]; then',
    '[[ $__agenttool_want == "$SHELLOPTS" ]] || { __agenttool_opts "$__agenttool_want"; } 2>/dev/null;',
    'builtin eval "_=\\$__agenttool_path \\builtin exec -- $__agenttool_c";',
    // Else the options and $? the command starts with; in the common case, the options
    // are as they should be and nothing is traced (no redirection to pay for).
    // With xtrace, the options but xtrace, which the eval's first call turns on.
    'else if [[ $__agenttool_want == *xtrace* ]]; then { __agenttool_opts "${__agenttool_want/xtrace/}"; } 2>/dev/null;',
    // (A status other than 0 in an && list, where set -e lets it be; nothing runs after
    // it there, so nothing is traced.)
    'if ((__agenttool_last)); then __agenttool_xp="__agenttool_xret $__agenttool_last && :; "; else __agenttool_xp="__agenttool_xret 0; "; fi;',
    'elif [[ $__agenttool_want == "$SHELLOPTS" ]]; then __agenttool_ret "$__agenttool_last" && :;',
    'else { __agenttool_opts "$__agenttool_want"; __agenttool_ret "$__agenttool_last" && :; } 2>/dev/null; fi;',
    'builtin eval "${__agenttool_xp-}$__agenttool_c"; { __agenttool_done "$?"; } 2>/dev/null; fi',
    ') 2>&1 & __agenttool_ended "$!"; done',
  ].join(' '),
].join('; ');
