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
 * made of random bytes (`<marker> R`, `<marker> S <pgid>`, `<marker> E <status>`), so
 * the order of output and "the command ended" is the order of the one pipe.
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

/** The script the persistent bash runs once; it ends by printing `<marker> R`. */
export function initScript(marker: string, stateFile: string): string {
  return `
set -m
set +o history 2>/dev/null
shopt -s expand_aliases
__agenttool_m=${bashQuote(marker)}
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
printf '%s R\\n' "$__agenttool_m"
`;
}

/**
 * The snippet that runs one command as a job in its own process group. The job prints
 * `<marker> S <pgid>` as its first act: by then its signal handling is its own, so an
 * interrupt sent on that news is not lost (one sent between fork and that point can
 * be). The state is restored before the traps are set, so an interrupt during the
 * restore saves nothing rather than a half-restored state. After that, SIGINT and
 * SIGTERM end the command line through `exit`, so its state is saved; bash alone would
 * go on with the next command when the foreground program survived the signal (an
 * interrupt that landed while it was starting is lost that way). The shell prints
 * `<marker> E <status>` when the job ends. Standard error is merged into standard
 * output; standard input is /dev/null, since the shell's own input is this channel.
 */
export function commandSnippet(command: string): string {
  return `__agenttool_cmd=${bashQuote(command)}
(
  printf '%s S %d\\n' "$__agenttool_m" "$BASHPID"
  if [ -r "$__agenttool_state" ]; then . "$__agenttool_state" 2>/dev/null; fi
  builtin trap 'exit 130' INT
  builtin trap 'exit 143' TERM
  builtin trap '{ __agenttool_save; } 2>/dev/null' EXIT
  { __agenttool_ret "$__agenttool_last" && :; } 2>/dev/null
  builtin eval "$__agenttool_cmd"
) </dev/null 2>&1 &
wait "$!"
__agenttool_last=$?
printf '%s E %d\\n' "$__agenttool_m" "$__agenttool_last"
`;
}
