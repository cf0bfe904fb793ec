/**
 * The signaller of a persistent bash (see bash-driver.ts): what interrupts its commands.
 *
 * Interrupts are lines (`INT <pgid>`, `TERM <pgid>`, `KILL <pgid>`) to a signaller: a
 * background job of the shell reading descriptor 3 (or, for a shell in a container, a
 * process of its own in the container). It lives in the shell's PID namespace, so it
 * signals the group by the id the start line gave, inside a sandbox as outside, and what
 * the command started in groups of its own. When its input ends (the server exited or
 * was killed outright) it kills every process of the shell's session, so neither bash
 * nor a running command outlives the server.
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
 *
 * /proc may count pids in a PID namespace outside the caller's (in the sandbox it does:
 * there `/proc/$BASHPID` is another process), so, as in SIGNAL_JOB_TREE, a process is
 * taken only when its pid namespace is the caller's, and is known by the last field of
 * its NSpid, NSpgid and NSsid lines: its numbers in that namespace, by which `$1` and
 * `$BASHPID` count too.
 */
export const KILL_SESSION = `
__agenttool_kill_session() {
  local __agenttool_l __agenttool_f __agenttool_o __agenttool_found __agenttool_round
  local __agenttool_p __agenttool_group __agenttool_session
  local __agenttool_me=$BASHPID __agenttool_sid=$1
  local -a __agenttool_lines
  if [[ -z $__agenttool_sid ]]; then
    builtin mapfile -t -n 20 __agenttool_lines </proc/self/status || return 0
    for __agenttool_l in "\${__agenttool_lines[@]}"; do
      [[ $__agenttool_l == NSsid:* ]] && __agenttool_sid=\${__agenttool_l##*[!0-9]}
    done
    [[ -n $__agenttool_sid ]] || return 0
  fi
  for __agenttool_round in 1 2 3 4 5 6 7 8 9 10; do
    __agenttool_found=
    for __agenttool_f in /proc/[0-9]*/status; do
      __agenttool_o=\${__agenttool_f#/proc/}
      __agenttool_o=\${__agenttool_o%/status}
      [[ /proc/$__agenttool_o/ns/pid -ef /proc/self/ns/pid ]] || continue
      builtin mapfile -t -n 20 __agenttool_lines <"$__agenttool_f" || continue
      __agenttool_p= __agenttool_group= __agenttool_session=
      for __agenttool_l in "\${__agenttool_lines[@]}"; do
        case $__agenttool_l in
          # A zombie is already dead.
          State:*Z*) continue 2 ;;
          NSpid:*) __agenttool_p=\${__agenttool_l##*[!0-9]} ;;
          NSpgid:*) __agenttool_group=\${__agenttool_l##*[!0-9]} ;;
          NSsid:*)
            __agenttool_session=\${__agenttool_l##*[!0-9]}
            break
            ;;
        esac
      done
      [[ $__agenttool_session == "$__agenttool_sid" && -n $__agenttool_p ]] || continue
      [[ $__agenttool_p != "$__agenttool_me" ]] || continue
      __agenttool_found=1
      [[ -z $__agenttool_group || $__agenttool_group == "$__agenttool_me" ]] ||
        builtin kill -s KILL -- "-$__agenttool_group"
      builtin kill -s KILL "$__agenttool_p"
    done 2>/dev/null
    [[ -n $__agenttool_found ]] || return 0
  done
}`;

/**
 * Signals what a command's job (\`$2\`: its pid as this shell counts it, which is also its
 * process group) started in process groups of their own (\`timeout\` and \`setsid\` move to
 * one), which a signal to the job's group misses. For INT and TERM: each process that
 * left the job's group (one whose parent is still in it), as a terminal's interrupt would
 * reach \`timeout\`, which passes it on to its own group. For KILL: the job, the process
 * groups its descendants lead (what they start meanwhile is in them), and everything
 * descended from it, which is also how a container's signaller ends a shell that leads
 * no session of its own.
 *
 * /proc may count pids in a PID namespace outside this shell's (in the sandbox it does),
 * so a process is taken only when its pid namespace is this shell's (its
 * \`/proc/<n>/ns/pid\` is the same file as ours; one it cannot read is left alone), and is
 * known by the last field of its NSpid and NSpgid lines: its pid and group in that
 * namespace, by which it is signalled. With more than 3,000 processes in /proc (a scan
 * takes some 100 µs each) it does nothing: the group's signal goes out as before.
 */
const SIGNAL_JOB_TREE = `
__agenttool_signal_job_tree() {
  local __agenttool_f __agenttool_l __agenttool_o __agenttool_p __agenttool_c
  local __agenttool_ppid __agenttool_ns __agenttool_group __agenttool_root=
  local -A __agenttool_kids=() __agenttool_inner=() __agenttool_grp=() __agenttool_parent=()
  local -A __agenttool_seen=()
  local -a __agenttool_entries __agenttool_lines __agenttool_queue __agenttool_targets=()
  [[ /proc/self/ns/pid -ef /proc/self/ns/pid ]] || return 0
  __agenttool_entries=(/proc/[0-9]*/status)
  ((\${#__agenttool_entries[@]} <= 3000)) || return 0
  for __agenttool_f in "\${__agenttool_entries[@]}"; do
    __agenttool_o=\${__agenttool_f#/proc/}
    __agenttool_o=\${__agenttool_o%/status}
    [[ /proc/$__agenttool_o/ns/pid -ef /proc/self/ns/pid ]] || continue
    builtin mapfile -t -n 20 __agenttool_lines 2>/dev/null <"$__agenttool_f" || continue
    __agenttool_ppid= __agenttool_ns= __agenttool_group=
    for __agenttool_l in "\${__agenttool_lines[@]}"; do
      case $__agenttool_l in
        State:*Z*) continue 2 ;;
        PPid:*) __agenttool_ppid=\${__agenttool_l//[!0-9]/} ;;
        NSpid:*) __agenttool_ns=\${__agenttool_l##*[!0-9]} ;;
        NSpgid:*)
          __agenttool_group=\${__agenttool_l##*[!0-9]}
          break
          ;;
      esac
    done
    [[ -n $__agenttool_ppid && -n $__agenttool_ns && -n $__agenttool_group ]] || continue
    __agenttool_inner[$__agenttool_o]=$__agenttool_ns
    __agenttool_grp[$__agenttool_o]=$__agenttool_group
    __agenttool_parent[$__agenttool_o]=$__agenttool_ppid
    __agenttool_kids[$__agenttool_ppid]+=" $__agenttool_o"
    [[ $__agenttool_ns == "$2" ]] && __agenttool_root=$__agenttool_o
  done
  [[ -n $__agenttool_root ]] || return 0
  __agenttool_queue=("$__agenttool_root")
  while ((\${#__agenttool_queue[@]})); do
    __agenttool_p=\${__agenttool_queue[0]}
    __agenttool_queue=("\${__agenttool_queue[@]:1}")
    [[ -z \${__agenttool_seen[$__agenttool_p]-} ]] || continue
    __agenttool_seen[$__agenttool_p]=1
    if [[ $1 == KILL ]]; then
      __agenttool_targets+=("$__agenttool_p")
    elif [[ \${__agenttool_grp[$__agenttool_p]} != "$2" &&
      \${__agenttool_grp[\${__agenttool_parent[$__agenttool_p]}]-} == "$2" ]]; then
      __agenttool_targets+=("$__agenttool_p")
    fi
    for __agenttool_c in \${__agenttool_kids[$__agenttool_p]-}; do __agenttool_queue+=("$__agenttool_c"); done
  done
  if [[ $1 == KILL ]]; then
    # The job first, so that it ends by this signal, not by what its children's end does
    # (a pending INT trap would exit 130); then the groups the tree's processes lead,
    # whole: a process forked after the scan is in its parent's group, and a fork racing
    # a signal to its group does not escape it.
    builtin kill -s KILL "$2" 2>/dev/null
    for __agenttool_p in "\${__agenttool_targets[@]}"; do
      [[ \${__agenttool_grp[$__agenttool_p]} == "\${__agenttool_inner[$__agenttool_p]}" &&
        \${__agenttool_grp[$__agenttool_p]} != "$2" ]] || continue
      builtin kill -s KILL -- "-\${__agenttool_grp[$__agenttool_p]}" 2>/dev/null
    done
  fi
  for __agenttool_p in "\${__agenttool_targets[@]}"; do
    builtin kill -s "$1" "\${__agenttool_inner[$__agenttool_p]}" 2>/dev/null
  done
  return 0
}`;

/**
 * The signaller: reads `<signal> <pgid>` lines from descriptor `$1` and signals that
 * group, and what the job started in groups of its own (see SIGNAL_JOB_TREE); at end of
 * input, runs `$2` if given (what ends the shell), else kills its own session. It
 * ignores interrupts, so that a signal meant for a command never ends it.
 */
export const SIGNALLER = `${KILL_SESSION}${SIGNAL_JOB_TREE}
__agenttool_signaller() {
  builtin trap '' INT TERM HUP
  local __agenttool_s __agenttool_p
  while IFS=' ' builtin read -r -u "$1" __agenttool_s __agenttool_p; do
    case $__agenttool_p in '' | *[!0-9]* | 0 | 1) continue ;; esac
    case $__agenttool_s in
      INT | TERM)
        builtin kill -s "$__agenttool_s" -- "-$__agenttool_p" 2>/dev/null
        __agenttool_signal_job_tree "$__agenttool_s" "$__agenttool_p"
        ;;
      KILL)
        # The tree first: once the job is killed, its descendants are no longer its.
        __agenttool_signal_job_tree KILL "$__agenttool_p"
        builtin kill -s KILL -- "-$__agenttool_p" 2>/dev/null
        ;;
    esac
  done
  if [ -n "\${2-}" ]; then "$2"; else __agenttool_kill_session; fi
}`;

/**
 * The script a signaller process of its own runs (a shell in a container, where the
 * shell's process gets no descriptor but its standard input): it reads lines from
 * standard input. The first line names the shell (\`SHELL <pid>\`): when input ends, it
 * kills the shell's session if the shell leads one, else the shell and what it started.
 */
export function signallerScript(): string {
  return `${SIGNALLER}
IFS=' ' read -r __agenttool_w __agenttool_shell || exit 0
case $__agenttool_shell in '' | *[!0-9]*) exit 2 ;; esac
__agenttool_end() {
  local __agenttool_l
  IFS= read -r __agenttool_l </proc/$__agenttool_shell/stat 2>/dev/null || return 0
  __agenttool_l=\${__agenttool_l##*) }
  set -- $__agenttool_l
  if [ "$4" = "$__agenttool_shell" ]; then __agenttool_kill_session "$__agenttool_shell"
  else __agenttool_signal_job_tree KILL "$__agenttool_shell"; fi
}
__agenttool_signaller 0 __agenttool_end
`;
}
