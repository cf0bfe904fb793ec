/**
 * The bash side of {@link Shell}: the script the persistent bash runs once at start, and
 * the snippet it runs for each command.
 *
 * Why it is shaped this way: each command must run in its own process group, so that an
 * interrupt (SIGINT to that group) reaches the command and everything it started but
 * never the shell. The persistent bash therefore runs with job control on (`set -m`) and
 * starts each command as one job: a subshell, whose pid is the group's id. A subshell
 * cannot change its parent's state, so it carries the state itself: before the command
 * it restores what the previous command left (working directory, variables and their
 * attributes, functions, aliases, `set` and `shopt` options, umask) from a state file,
 * and on exit (normal, `exit`, `set -e`, or an interrupt) it saves it again. The file is
 * replaced atomically, so a command killed outright leaves the state as it was before it.
 *
 * Everything the shell tells us travels on stdout, in lines that start with a marker
 * (`<marker> R`, `<marker> S <pgid>`, `<marker> E <status>`), so the order of output and
 * "the command ended" is the order of the one pipe. Each marker is random, used once,
 * and never visible to a command before it matters: the start marker is the first thing
 * the job prints, before the command exists, and the end marker is read by bash from its
 * input only after the job has ended. Bash reads its input from a pipe one byte at a
 * time (POSIX requires a shell not to read ahead of the command it runs), so the end
 * marker is not in the memory the job was forked with. A command's output can therefore
 * neither end its own call early nor fake the start of another.
 *
 * File descriptor 3, when open, is a pipe whose other end only the server holds: a
 * watchdog started at init waits for its end of file (the server exited or was killed
 * outright) and then kills every process of bash's session, so neither bash nor a
 * running command outlives the server.
 */

/** Variables bash maintains itself: never saved, restored or unset. */
const SPECIAL_VARIABLES = [
  '_',
  'BASH',
  'BASHOPTS',
  'BASHPID',
  'BASH_ALIASES',
  'BASH_ARGC',
  'BASH_ARGV',
  'BASH_ARGV0',
  'BASH_CMDS',
  'BASH_COMMAND',
  'BASH_EXECUTION_STRING',
  'BASH_LINENO',
  'BASH_MONOSECONDS',
  'BASH_REMATCH',
  'BASH_SOURCE',
  'BASH_SUBSHELL',
  'BASH_TRAPSIG',
  'BASH_VERSINFO',
  'BASH_VERSION',
  'COMP_WORDBREAKS',
  'DIRSTACK',
  'EPOCHREALTIME',
  'EPOCHSECONDS',
  'EUID',
  'FUNCNAME',
  'GROUPS',
  'HISTCMD',
  'HOSTNAME',
  'HOSTTYPE',
  'LINENO',
  'MACHTYPE',
  'OSTYPE',
  'PIPESTATUS',
  'PPID',
  'PWD',
  'RANDOM',
  'SECONDS',
  'SHELLOPTS',
  'SHLVL',
  'SRANDOM',
  'UID',
];

/** `set -o` options that belong to the persistent shell, not to a command. */
const SHELL_OWNED_OPTIONS = ['monitor', 'history', 'emacs', 'vi', 'interactive-comments'];

/** Quotes a string for bash: single quotes, with `'` written as `'\''`. */
export function bashQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Started at init when descriptor 3 is open: waits for its end of file, then kills every
 * process of this session (bash leads it), group by group, repeating while any is left.
 * It runs in a process group of its own, ignores interrupts, and holds nothing else of
 * the shell's; bash then closes descriptor 3, so no command inherits it.
 */
const WATCHDOG = `
__agenttool_kill_session() {
  local __agenttool_l __agenttool_f __agenttool_p __agenttool_found __agenttool_round
  local __agenttool_me=$BASHPID __agenttool_sid
  IFS= read -r __agenttool_l </proc/$BASHPID/stat || return 0
  # The fields after the name are letters and numbers: no glob to fear in the split.
  __agenttool_l=\${__agenttool_l##*) }
  set -- $__agenttool_l
  __agenttool_sid=$4
  for __agenttool_round in 1 2 3 4 5 6 7 8 9 10; do
    __agenttool_found=
    for __agenttool_f in /proc/[0-9]*/stat; do
      IFS= read -r __agenttool_l <"$__agenttool_f" 2>/dev/null || continue
      __agenttool_l=\${__agenttool_l##*) }
      set -- $__agenttool_l
      # state ppid pgrp session: a zombie is already dead.
      [ "$4" = "$__agenttool_sid" ] && [ "$1" != Z ] || continue
      __agenttool_p=\${__agenttool_f#/proc/}
      __agenttool_p=\${__agenttool_p%/stat}
      [ "$__agenttool_p" = "$__agenttool_me" ] && continue
      __agenttool_found=1
      [ "$3" = "$__agenttool_me" ] || kill -KILL -- "-$3"
      kill -KILL "$__agenttool_p"
    done 2>/dev/null
    [ -n "$__agenttool_found" ] || return 0
  done
}
if { : <&3; } 2>/dev/null; then
  (
    trap '' INT HUP
    while IFS= read -r -u 3 _; do :; done
    __agenttool_kill_session
  ) </dev/null >/dev/null 2>&1 &
  exec 3<&-
fi`;

/**
 * The script the persistent bash runs once: it defines the helpers, starts the watchdog
 * when descriptor 3 is open, and ends by printing `<readyMarker> R`.
 */
export function initScript(readyMarker: string, stateFile: string): string {
  return `
set -m
set +o history 2>/dev/null
shopt -s expand_aliases
__agenttool_state=${bashQuote(stateFile)}
__agenttool_last=0
__agenttool_special=${bashQuote(` ${SPECIAL_VARIABLES.join(' ')} `)}
__agenttool_owned=${bashQuote(` ${SHELL_OWNED_OPTIONS.join(' ')} `)}
__agenttool_user_var() {
  case $1 in __agenttool_*) return 1 ;; esac
  case $__agenttool_special in *" $1 "*) return 1 ;; esac
  return 0
}
__agenttool_ret() { return "$1"; }
__agenttool_reset_vars() {
  local -a __agenttool_names
  local __agenttool_n
  mapfile -t __agenttool_names < <(compgen -v)
  for __agenttool_n in "\${__agenttool_names[@]}"; do
    __agenttool_user_var "$__agenttool_n" && unset -v "$__agenttool_n" 2>/dev/null
  done
  return 0
}
__agenttool_opts() {
  local -a __agenttool_lines
  local __agenttool_l __agenttool_o
  mapfile -t __agenttool_lines < <(shopt -p)
  for __agenttool_l in "\${__agenttool_lines[@]}"; do
    __agenttool_o=\${__agenttool_l##* }
    case ":$2:" in
      *":$__agenttool_o:"*) shopt -s "$__agenttool_o" ;;
      *) shopt -u "$__agenttool_o" ;;
    esac
  done 2>/dev/null
  # set -o last: once errexit is on, nothing after this may fail.
  mapfile -t __agenttool_lines < <(set +o)
  for __agenttool_l in "\${__agenttool_lines[@]}"; do
    __agenttool_o=\${__agenttool_l##* }
    case $__agenttool_owned in *" $__agenttool_o "*) continue ;; esac
    case ":$1:" in
      *":$__agenttool_o:"*) set -o "$__agenttool_o" ;;
      *) set +o "$__agenttool_o" ;;
    esac
  done
  return 0
}
# Runs in the command's environment, where its functions may shadow commands: builtin.
__agenttool_save() {
  # The command is over; a repeated interrupt must not cut the save short.
  builtin trap '' INT TERM
  local __agenttool_so=$SHELLOPTS __agenttool_bo=$BASHOPTS __agenttool_um __agenttool_n
  builtin set +euvx
  builtin set +o pipefail
  local -a __agenttool_names __agenttool_vars=() __agenttool_funcs=()
  __agenttool_um=$(builtin umask)
  builtin mapfile -t __agenttool_names < <(builtin compgen -v)
  for __agenttool_n in "\${__agenttool_names[@]}"; do
    __agenttool_user_var "$__agenttool_n" && __agenttool_vars+=("$__agenttool_n")
  done
  builtin mapfile -t __agenttool_names < <(builtin compgen -A function)
  for __agenttool_n in "\${__agenttool_names[@]}"; do
    case $__agenttool_n in __agenttool_*) ;; *) __agenttool_funcs+=("$__agenttool_n") ;; esac
  done
  {
    builtin printf '__agenttool_reset_vars\\n'
    builtin printf 'builtin cd -- %q 2>/dev/null || builtin printf %q %q "$PWD"\\n' "$PWD" \\
      'agenttool: the working directory %s is gone; staying in %s\\n' "$PWD"
    if ((\${#__agenttool_vars[@]})); then builtin declare -p "\${__agenttool_vars[@]}"; fi
    builtin printf 'builtin umask %s\\n' "$__agenttool_um"
    # Functions before aliases: an alias would be expanded in a definition's name.
    if ((\${#__agenttool_funcs[@]})); then builtin declare -f "\${__agenttool_funcs[@]}"; fi
    builtin printf 'builtin unalias -a\\n'
    builtin alias -p
    builtin printf '__agenttool_opts %q %q\\n' "$__agenttool_so" "$__agenttool_bo"
  } >|"$__agenttool_state.tmp" 2>/dev/null && command mv -f "$__agenttool_state.tmp" "$__agenttool_state"
}
${WATCHDOG}
builtin printf '%s R\\n' ${bashQuote(readyMarker)}
`;
}

/**
 * The snippet that runs one command as a job in its own process group. The job prints
 * `<startMarker> S <pgid>` as its first act: by then its signal handling is its own, so
 * an interrupt sent on that news is not lost (one sent between fork and that point can
 * be). The state is restored before the traps are set, so an interrupt during the
 * restore saves nothing rather than a half-restored state. After that, SIGINT and
 * SIGTERM end the command line through `exit`, so its state is saved; bash alone would
 * go on with the next command when the foreground program survived the signal (an
 * interrupt that landed while it was starting is lost that way). When the job has ended
 * the shell reads the end marker, the line the driver writes right after this snippet
 * (see {@link endMarkerLine}), and prints `<endMarker> E <status>`; `read` and `printf`
 * share the snippet's last line, since bash runs a line only once it has read all of
 * it, and `read` takes the line that follows. Standard error is
 * merged into standard output; standard input is /dev/null, since the shell's own input
 * is this channel.
 */
export function commandSnippet(command: string, startMarker: string): string {
  return `__agenttool_cmd=${bashQuote(command)}
(
  builtin printf '%s S %d\\n' ${bashQuote(startMarker)} "$BASHPID"
  if [ -r "$__agenttool_state" ]; then . "$__agenttool_state" 2>/dev/null; fi
  builtin trap 'exit 130' INT
  builtin trap 'exit 143' TERM
  builtin trap '{ __agenttool_save; } 2>/dev/null' EXIT
  { __agenttool_ret "$__agenttool_last" && :; } 2>/dev/null
  builtin eval "$__agenttool_cmd"
) </dev/null 2>&1 &
wait "$!"
__agenttool_last=$?
IFS= read -r __agenttool_end; builtin printf '%s E %d\\n' "$__agenttool_end" "$__agenttool_last"; __agenttool_end=
`;
}

/** The line that follows a {@link commandSnippet}: the end marker, read once the job ended. */
export function endMarkerLine(endMarker: string): string {
  return `${endMarker}\n`;
}
