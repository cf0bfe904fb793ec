// The shell's state as bash sees it: which variables and options are a command's (not
// bash's, nor the shell's own), how it is printed (for the next command's job to
// restore) and how its set -o options are applied. bash-save.ts keeps it (its files, and
// a save that fails never costing the last good state); bash-driver.ts says when a job
// restores and saves it.

import { stateFilesScript } from './bash-save';
import { bashQuote, SHELL_OWNED_OPTIONS, SPECIAL_VARIABLES } from './bash-words';

/** What {@link stateScript} reads of the shell's options (see `InitOptions`). */
export interface StateOptions {
  readonly stateDirs: readonly string[];
  readonly stateName: string;
  readonly given?: readonly string[] | undefined;
}

/**
 * The part of the start-up script that opens the state files (see bash-save.ts) and defines
 * `__agenttool_opts` (applies a state's set -o options) and `__agenttool_state` (prints
 * the state as bash that restores it). It runs after the launch's prelude: what the
 * shell has by then is its own, not a command's.
 */
export function stateScript(options: StateOptions): string {
  return `
# A lookup table, not a pattern: matching *" name "* against the list took about 10 µs
# a variable, and a save looks at every variable.
declare -A __agenttool_special=(${SPECIAL_VARIABLES.map((name) => `[${name}]=1`).join(' ')})
# What compgen -X leaves out of a state: our own variables and bash's.
__agenttool_not_user=${bashQuote(`@(__agenttool_*|${SPECIAL_VARIABLES.join('|')})`)}
__agenttool_user_var() {
  case $1 in __agenttool_*) return 1 ;; esac
  [[ -z \${__agenttool_special[$1]-} ]]
}
${stateFilesScript(options)}# Where a job finds the state: through the shell's descriptors, so it can close its own.
# The shell's pid as /proc counts it, which in a sandbox can be another PID namespace's
# than the one $$ counts in.
__agenttool_fds=/dev/fd
if IFS=' ' builtin read -r __agenttool_n _ </proc/self/stat 2>/dev/null &&
  [ -e "/proc/$__agenttool_n/fd/$__agenttool_fd" ]; then
  __agenttool_fds=/proc/$__agenttool_n/fd
fi
# Names of the variables the shell starts with: a saved state says which are still set.
__agenttool_initial=()
builtin compgen -v >|"$__agenttool_fds/$__agenttool_tfd"
builtin mapfile -t __agenttool_names <"$__agenttool_fds/$__agenttool_tfd"
for __agenttool_n in "\${__agenttool_names[@]}"; do
  __agenttool_user_var "$__agenttool_n" && __agenttool_initial+=("$__agenttool_n")
done
# The starting variables a state need not carry while they are as the shell has them:
# every job is forked from the shell, so it has them already, and a restore of the ~40
# a sandbox starts with (an unset and a declare each) cost a job 0.25 ms. All but
# OLDPWD, which every cd changes. Their declarations now, to tell at a save whether a
# command changed any (one declare -p and one comparison, no loop over them), and the
# compgen pattern that leaves them out of the variables a state carries.
__agenttool_stable=()
for __agenttool_n in "\${__agenttool_initial[@]}"; do
  [[ $__agenttool_n == OLDPWD ]] || __agenttool_stable+=("$__agenttool_n")
done
__agenttool_stable_decl=
if ((\${#__agenttool_stable[@]})); then
  builtin declare -p "\${__agenttool_stable[@]}" >|"$__agenttool_fds/$__agenttool_tfd"
  IFS= builtin read -r -d '' __agenttool_stable_decl <"$__agenttool_fds/$__agenttool_tfd"
fi
builtin printf -v __agenttool_not_new '|%s' "\${__agenttool_stable[@]}"
__agenttool_not_new="\${__agenttool_not_user%)}$__agenttool_not_new)"
# The set -o options a command may change: all but the ones this shell owns.
__agenttool_setopts=()
builtin set +o >|"$__agenttool_fds/$__agenttool_tfd"
builtin mapfile -t __agenttool_names <"$__agenttool_fds/$__agenttool_tfd"
for __agenttool_n in "\${__agenttool_names[@]}"; do
  __agenttool_n=\${__agenttool_n##* }
  case ${bashQuote(` ${SHELL_OWNED_OPTIONS.join(' ')} `)} in *" $__agenttool_n "*) ;; *) __agenttool_setopts+=("$__agenttool_n") ;; esac
done
# The environment the shell was started with but not given by its owner: what a sandbox
# or a container set for itself (its proxy, its temp folder).
__agenttool_plumbing=' '
for __agenttool_n in "\${__agenttool_initial[@]}"; do
  [[ \${!__agenttool_n@a} == *x* ]] || continue
  case ${bashQuote(` ${(options.given ?? []).join(' ')} `)} in *" $__agenttool_n "*) ;; *) __agenttool_plumbing+="$__agenttool_n " ;; esac
done
# The shopt options every job starts with (a state leaves them out when they are these).
__agenttool_bashopts=$BASHOPTS
# Applies the set -o options of a state (a job calls it only when they differ from its
# own: see SERVE_LINE in bash-driver.ts).
__agenttool_opts() {
  local __agenttool_o
  for __agenttool_o in "\${__agenttool_setopts[@]}"; do
    case ":$1:" in
      *":$__agenttool_o:"*) builtin set -o "$__agenttool_o" ;;
      *) builtin set +o "$__agenttool_o" ;;
    esac
  done
  return 0
}
# Prints the state as bash that restores it, and fails when any of it could not be
# written (a save then keeps none of it: see bash-save.ts). With 1, the state another
# shell can take (the escape hatch's unconfined shell, say): without the variables this
# shell's sandbox or container set itself, which mean nothing elsewhere. It runs in the
# command's environment: builtin and [[ ]], not test, which a function of the
# command's could stand in for (local stays: through builtin, its assignments would be
# split as words).
__agenttool_state() {
  local __agenttool_so=$SHELLOPTS __agenttool_n __agenttool_portable=\${1-} __agenttool_bad=
  builtin set +euvx
  builtin set +o pipefail
  local -a __agenttool_names __agenttool_vars=() __agenttool_funcs=() __agenttool_unset=() __agenttool_exported=()
  # Whether the starting variables are as the shell has them (see __agenttool_stable):
  # then the state carries the others only, and OLDPWD.
  local __agenttool_skip=$__agenttool_not_user __agenttool_same=
  if [[ -z $__agenttool_portable ]]; then
    __agenttool_n=
    if ((\${#__agenttool_stable[@]})); then
      { builtin declare -p "\${__agenttool_stable[@]}" >|"$__agenttool_fds/$__agenttool_tfd"; } 2>/dev/null
      IFS= builtin read -r -d '' __agenttool_n <"$__agenttool_fds/$__agenttool_tfd"
    fi
    if [[ $__agenttool_n == "$__agenttool_stable_decl" ]]; then
      __agenttool_same=1
      __agenttool_skip=$__agenttool_not_new
    fi
  fi
  # The names come filtered from compgen (a pattern match in C): a loop in bash over the
  # ninety-odd variables cost more than the rest of the save. Its -X pattern needs
  # extglob, and nocasematch would make it drop a user's 'bash' along with 'BASH'.
  local __agenttool_bo=$BASHOPTS
  builtin shopt -s extglob
  builtin shopt -u nocasematch
  # Each list ends in an empty line, which no name is: compgen fails when nothing
  # matches, the line's write when the list could not be written.
  { builtin compgen -v -X "$__agenttool_skip"; builtin printf '\\n'; } >|"$__agenttool_fds/$__agenttool_tfd" || __agenttool_bad=1
  builtin mapfile -t __agenttool_vars <"$__agenttool_fds/$__agenttool_tfd"
  builtin unset -v '__agenttool_vars[-1]'
  # Nor functions named exec or builtin, which would stand in for the builtins a job
  # uses between its restore and its command (see __agenttool_next).
  { builtin compgen -A function -X '@(__agenttool_*|exec|builtin)'; builtin printf '\\n'; } >|"$__agenttool_fds/$__agenttool_tfd" || __agenttool_bad=1
  builtin mapfile -t __agenttool_funcs <"$__agenttool_fds/$__agenttool_tfd"
  builtin unset -v '__agenttool_funcs[-1]'
  case :$__agenttool_bo: in *:extglob:*) ;; *) builtin shopt -u extglob ;; esac
  case :$__agenttool_bo: in *:nocasematch:*) builtin shopt -s nocasematch ;; esac
  if [[ -n $__agenttool_same ]]; then
    # OLDPWD as the command left it: set (and declared below) or not.
    __agenttool_unset=(OLDPWD)
  elif [[ -z $__agenttool_portable ]]; then
    __agenttool_unset=("\${__agenttool_initial[@]}")
  else
    __agenttool_names=("\${__agenttool_vars[@]}")
    __agenttool_vars=()
    for __agenttool_n in "\${__agenttool_names[@]}"; do
      case $__agenttool_plumbing in *" $__agenttool_n "*) continue ;; esac
      __agenttool_vars+=("$__agenttool_n")
    done
    for __agenttool_n in "\${__agenttool_initial[@]}"; do
      case $__agenttool_plumbing in *" $__agenttool_n "*) continue ;; esac
      __agenttool_unset+=("$__agenttool_n")
    done
  fi
  if ((\${#__agenttool_unset[@]})); then
    builtin printf 'builtin unset -v' || __agenttool_bad=1
    builtin printf ' %q' "\${__agenttool_unset[@]}" || __agenttool_bad=1
    builtin printf '\\n' || __agenttool_bad=1
  fi
  # The working directory: $PWD, unless the command unset it or set it to a directory
  # the shell is not in (bash's pwd still says where it is: where cd took it).
  local __agenttool_wd=\${PWD-}
  if [[ $__agenttool_wd != /* ]] || ! [[ $__agenttool_wd -ef . ]]; then
    if builtin pwd >|"$__agenttool_fds/$__agenttool_tfd" 2>/dev/null; then
      IFS= builtin read -r -d '' __agenttool_wd <"$__agenttool_fds/$__agenttool_tfd"
      __agenttool_wd=\${__agenttool_wd%$'\\n'}
    fi
    [[ -n $__agenttool_wd ]] || __agenttool_wd=\${PWD-}
  fi
  builtin printf 'builtin cd -- %q 2>/dev/null || __agenttool_gone=%q\\n' "$__agenttool_wd" "$__agenttool_wd" || __agenttool_bad=1
  # The directory stack below it (pushd, popd): each entry pushed without a cd, the
  # deepest first, so that they come back in their order.
  for ((__agenttool_n = \${#DIRSTACK[@]} - 1; __agenttool_n >= 1; __agenttool_n--)); do
    builtin printf 'builtin pushd -n -- %q\\n' "\${DIRSTACK[__agenttool_n]}" || __agenttool_bad=1
  done
  if ((\${#__agenttool_vars[@]})); then builtin declare -p "\${__agenttool_vars[@]}" || __agenttool_bad=1; fi
  builtin umask -p || __agenttool_bad=1
  # Every job starts with the shell's own shopt options: say them only when they differ
  # (60 lines that each cost a builtin on the way back in).
  if [[ -n $__agenttool_portable || $BASHOPTS != "$__agenttool_bashopts" ]]; then
    builtin shopt -p || __agenttool_bad=1
  fi
  # Their names, for a job's check of its command's first word (__agenttool_arm in
  # bash-driver.ts), which then needs no builtin of its own.
  builtin printf -v __agenttool_n ' %s' "\${__agenttool_funcs[@]}"
  # Functions before aliases: an alias would be expanded in a definition's name. Then
  # which of them are exported (export -f), for the programs a command runs.
  if ((\${#__agenttool_funcs[@]})); then
    builtin declare -f "\${__agenttool_funcs[@]}" || __agenttool_bad=1
    builtin declare -Fx >|"$__agenttool_fds/$__agenttool_tfd" || __agenttool_bad=1
    builtin mapfile -t __agenttool_names <"$__agenttool_fds/$__agenttool_tfd"
    __agenttool_names=("\${__agenttool_names[@]#declare -fx }")
    for __agenttool_wd in "\${__agenttool_names[@]}"; do
      [[ "$__agenttool_n " != *" $__agenttool_wd "* ]] || __agenttool_exported+=("$__agenttool_wd")
    done
    if ((\${#__agenttool_exported[@]})); then
      builtin printf 'builtin declare -fx' || __agenttool_bad=1
      builtin printf ' %q' "\${__agenttool_exported[@]}" || __agenttool_bad=1
      builtin printf '\\n' || __agenttool_bad=1
    fi
  fi
  builtin printf '__agenttool_fnames=%q\\n' "$__agenttool_n " || __agenttool_bad=1
  builtin alias -p || __agenttool_bad=1
  # set -o is applied right before the command (SERVE_LINE in bash-driver.ts): the
  # job's own steps between the restore and the command run without errexit or xtrace.
  builtin printf '__agenttool_want=%q\\n' "$__agenttool_so" || __agenttool_bad=1
  [[ -z $__agenttool_bad ]]
}
`;
}

/** The command that prints the shell's state portably (see `__agenttool_state`). */
export const EXPORT_STATE_COMMAND = '__agenttool_state 1';

/** The command that makes `state` (from {@link EXPORT_STATE_COMMAND}) the shell's state. */
export function importStateCommand(state: string): string {
  return `__agenttool_take ${bashQuote(state)}`;
}
