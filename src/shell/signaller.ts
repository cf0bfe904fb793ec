/**
 * The signaller of a persistent bash (see bash-driver.ts): what interrupts its commands.
 *
 * Interrupts are lines (`INT <pgid>`, `TERM <pgid>`, `KILL <pgid>`) to a signaller: a
 * background job of the shell reading descriptor 3 (or, for a shell in a container, a
 * process of its own in the container). It lives in the shell's PID namespace, so it
 * signals the group by the id the start line gave, inside a sandbox as outside, and
 * what the command started in groups of its own. When its input ends (the
 * server exited or was killed outright) it kills every process of the shell's session,
 * so neither bash nor a running command outlives the server.
 */

/** The signals a signaller line may name. */
export type SignallerSignal = 'INT' | 'TERM' | 'KILL';

/** The line that asks the signaller to send `signal` to process group `pgid`. */
export function signallerLine(signal: SignallerSignal, pgid: number): string {
  return `${signal} ${pgid}\n`;
}

/**
 * Kills every process of session `$1` (the caller's own when absent), group by group,
 * repeating while any is left. Reads /proc, so it needs no fork to find them.
 */
export const KILL_SESSION = `
__agenttool_kill_session() {
  local __agenttool_l __agenttool_f __agenttool_p __agenttool_found __agenttool_round
  local __agenttool_me=$BASHPID __agenttool_sid=$1
  if [ -z "$__agenttool_sid" ]; then
    IFS= read -r __agenttool_l </proc/$BASHPID/stat || return 0
    # The fields after the name are letters and numbers: no glob to fear in the split.
    __agenttool_l=\${__agenttool_l##*) }
    set -- $__agenttool_l
    __agenttool_sid=$4
  fi
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
}`;

/**
 * Sends signal \`$1\` to the descendants of process \`$2\` (a pid as this shell counts it:
 * a command's job, which leads the command's process group) that moved to a process
 * group of their own (\`timeout\` and \`setsid\` do), which a signal to the group misses;
 * for KILL, to the job and all of its descendants, repeated while the job lives. /proc may
 * count pids in a PID namespace outside this shell's (in the sandbox it does), so each
 * process is known by its NSpid and NSpgid lines, whose last fields are its pid and group
 * in its own namespace: only processes of this namespace (as many NSpid fields as this
 * one's) are taken, and signalled by that pid. Processes outside it (the sandbox's own)
 * can be neither found nor signalled.
 */
const SIGNAL_JOB_TREE = `
__agenttool_signal_job_tree() {
  local __agenttool_f __agenttool_l __agenttool_p __agenttool_c __agenttool_o __agenttool_round
  local __agenttool_levels= __agenttool_ppid __agenttool_ns __agenttool_group __agenttool_root
  local -A __agenttool_kids __agenttool_inner __agenttool_apart
  local -a __agenttool_lines __agenttool_queue __agenttool_all
  builtin mapfile -t __agenttool_lines </proc/self/status 2>/dev/null || return 0
  for __agenttool_l in "\${__agenttool_lines[@]}"; do
    [[ $__agenttool_l == NSpid:* ]] || continue
    # Digits and blanks: no glob to fear in the split.
    __agenttool_all=(\${__agenttool_l#NSpid:})
    __agenttool_levels=\${#__agenttool_all[@]}
  done
  [[ -n $__agenttool_levels ]] || return 0
  for __agenttool_round in 1 2 3 4 5; do
    __agenttool_kids=() __agenttool_inner=() __agenttool_apart=() __agenttool_root=
    for __agenttool_f in /proc/[0-9]*/status; do
      builtin mapfile -t __agenttool_lines <"$__agenttool_f" 2>/dev/null || continue
      __agenttool_ppid= __agenttool_ns= __agenttool_group=
      for __agenttool_l in "\${__agenttool_lines[@]}"; do
        case $__agenttool_l in
          PPid:*) __agenttool_ppid=\${__agenttool_l#PPid:} ;;
          NSpid:*) __agenttool_ns=\${__agenttool_l#NSpid:} ;;
          NSpgid:*)
            __agenttool_group=\${__agenttool_l##*[!0-9]}
            break
            ;;
          State:*Z*) continue 2 ;;
        esac
      done
      __agenttool_all=($__agenttool_ns)
      ((\${#__agenttool_all[@]} == __agenttool_levels)) && [[ -n $__agenttool_ppid ]] || continue
      __agenttool_o=\${__agenttool_f#/proc/}
      __agenttool_o=\${__agenttool_o%/status}
      __agenttool_inner[$__agenttool_o]=\${__agenttool_all[-1]}
      [[ $__agenttool_group == "$2" ]] || __agenttool_apart[$__agenttool_o]=1
      __agenttool_kids[\${__agenttool_ppid//[!0-9]/}]+=" $__agenttool_o"
      [[ \${__agenttool_all[-1]} == "$2" ]] && __agenttool_root=$__agenttool_o
    done
    [[ -n $__agenttool_root ]] || return 0
    __agenttool_queue=("$__agenttool_root")
    __agenttool_all=()
    while ((\${#__agenttool_queue[@]})); do
      __agenttool_p=\${__agenttool_queue[0]}
      __agenttool_queue=("\${__agenttool_queue[@]:1}")
      if [[ $1 == KILL || -n \${__agenttool_apart[$__agenttool_p]-} ]]; then
        __agenttool_all+=("\${__agenttool_inner[$__agenttool_p]}")
      fi
      for __agenttool_c in \${__agenttool_kids[$__agenttool_p]-}; do __agenttool_queue+=("$__agenttool_c"); done
    done
    ((\${#__agenttool_all[@]})) && builtin kill -s "$1" "\${__agenttool_all[@]}" 2>/dev/null
    [[ $1 == KILL ]] || return 0
  done
}`;

/**
 * The signaller: reads `<signal> <pgid>` lines from descriptor `$1` and signals that
 * group, and what the job started in groups of its own (see SIGNAL_JOB_TREE); at end of input, runs
 * `$2` if given (what ends the shell), else kills its own session. It ignores
 * interrupts, so that a signal meant for a command never ends it.
 */
export const SIGNALLER = `${KILL_SESSION}${SIGNAL_JOB_TREE}
__agenttool_signaller() {
  builtin trap '' INT TERM HUP
  local __agenttool_s __agenttool_p
  while IFS=' ' builtin read -r -u "$1" __agenttool_s __agenttool_p; do
    case $__agenttool_p in '' | *[!0-9]* | 0 | 1) continue ;; esac
    case $__agenttool_s in
      INT | TERM | KILL)
        # The tree first: once the job is killed, its descendants are no longer its.
        __agenttool_signal_job_tree "$__agenttool_s" "$__agenttool_p"
        builtin kill -s "$__agenttool_s" -- "-$__agenttool_p" 2>/dev/null
        ;;
    esac
  done
  if [ -n "\${2-}" ]; then "$2"; else __agenttool_kill_session; fi
}`;

/**
 * Kills process \`$1\` and everything descended from it, found by their parents in /proc
 * (for a shell that does not lead a session of its own, as in a container).
 */
const KILL_TREE = `
__agenttool_kill_tree() {
  local __agenttool_root=$1 __agenttool_f __agenttool_l __agenttool_p __agenttool_c __agenttool_round
  local -A __agenttool_kids
  local -a __agenttool_queue __agenttool_all
  for __agenttool_round in 1 2 3 4 5; do
    __agenttool_kids=()
    for __agenttool_f in /proc/[0-9]*/stat; do
      IFS= read -r __agenttool_l <"$__agenttool_f" 2>/dev/null || continue
      __agenttool_l=\${__agenttool_l##*) }
      set -- $__agenttool_l
      [ "$1" = Z ] && continue
      __agenttool_p=\${__agenttool_f#/proc/}
      __agenttool_kids[$2]+=" \${__agenttool_p%/stat}"
    done 2>/dev/null
    __agenttool_queue=("$__agenttool_root")
    __agenttool_all=()
    while ((\${#__agenttool_queue[@]})); do
      __agenttool_p=\${__agenttool_queue[0]}
      __agenttool_queue=("\${__agenttool_queue[@]:1}")
      [ -d "/proc/$__agenttool_p" ] && __agenttool_all+=("$__agenttool_p")
      for __agenttool_c in \${__agenttool_kids[$__agenttool_p]-}; do __agenttool_queue+=("$__agenttool_c"); done
    done
    ((\${#__agenttool_all[@]})) || return 0
    kill -KILL "\${__agenttool_all[@]}" 2>/dev/null
  done
}`;

/**
 * The script a signaller process of its own runs (a shell in a container, where the
 * shell's process gets no descriptor but its standard input): it reads lines from
 * standard input. The first line names the shell (\`SHELL <pid>\`): when input ends, it
 * kills the shell's session if the shell leads one, else the shell and what it started.
 */
export function signallerScript(): string {
  return `${SIGNALLER}${KILL_TREE}
IFS=' ' read -r __agenttool_w __agenttool_shell || exit 0
case $__agenttool_shell in '' | *[!0-9]*) exit 2 ;; esac
__agenttool_end() {
  local __agenttool_l
  IFS= read -r __agenttool_l </proc/$__agenttool_shell/stat 2>/dev/null || return 0
  __agenttool_l=\${__agenttool_l##*) }
  set -- $__agenttool_l
  if [ "$4" = "$__agenttool_shell" ]; then __agenttool_kill_session "$__agenttool_shell"
  else __agenttool_kill_tree "$__agenttool_shell"; fi
}
__agenttool_signaller 0 __agenttool_end
`;
}
