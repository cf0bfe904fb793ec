/**
 * The signaller of a persistent bash (see bash-driver.ts): what interrupts its commands.
 *
 * Interrupts are lines (`INT <pgid>`, `TERM <pgid>`, `KILL <pgid>`) to a signaller: a
 * background job of the shell reading descriptor 3 (or, for a shell in a container, a
 * process of its own in the container). It lives in the shell's PID namespace, so it
 * signals the group by the id the start line gave, inside a sandbox as outside, and what
 * the command started in groups and sessions of its own, until everything of it is
 * killed. When its input ends (the server exited or was killed outright) it kills what
 * the commands it was interrupting left and every process of the shell's session, so
 * neither bash nor a running command outlives the server.
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
 * Signals a command's job (\`$2\`: its pid as this shell counts it, which is also its
 * process group) and what it started, wherever that went: into process groups or
 * sessions of its own (\`timeout\` and \`setsid\` move to one), which a signal to the
 * job's group misses, or out of the tree, once its parent has died (a \`setsid -w\` the
 * first SIGINT killed, a worker pool whose parent exited on it).
 *
 * The first line for a job looks at /proc before any signal goes out, and the signaller
 * keeps what it saw until the job's SIGKILL: the job, everything descended from it, the
 * groups and sessions those lead and every process in them. Each later line looks again
 * and adds what the known processes started meanwhile, and what joined their groups and
 * sessions; what has gone is dropped (a process, group or session id is not given again
 * while anything holds it, and each step comes seconds after the last). So what the
 * command started stays known after it reparented, and after the job itself ended (the
 * escalation goes on for what it left: see ShellJob), while a process an earlier command
 * left running is never taken, being in none of this job's tree, groups or sessions.
 *
 * For INT and TERM: the job's group, and each known process outside it whose parent is
 * in it or is none of the job's (as a terminal's interrupt would reach \`timeout\`, which
 * passes it on to its own group; and an orphan, whose parent cannot). For KILL: the job
 * first, then every known group whole (a process forked after the look is in its
 * parent's group, and a fork racing a signal to its group does not escape it), then
 * every known process; then the job is forgotten. That is also how a container's
 * signaller ends a shell that leads no session of its own.
 *
 * /proc may count pids in a PID namespace outside this shell's (in the sandbox it does),
 * so a process is taken only when its pid namespace is this shell's (its
 * \`/proc/<n>/ns/pid\` is the same file as ours; one it cannot read is left alone), and is
 * known by the last field of its NSpid, NSpgid and NSsid lines: its ids in that
 * namespace, by which it is signalled. Without /proc, or with more than 3,000 processes
 * in it (a look takes some 100 µs each), only the job's group is signalled.
 */
const SIGNAL_JOB_TREE = `
__agenttool_signal_job_tree() {
  local __agenttool_f __agenttool_l __agenttool_o __agenttool_p __agenttool_k __agenttool_i
  local __agenttool_ppid __agenttool_ns __agenttool_group __agenttool_session
  local __agenttool_job=$2 __agenttool_h
  local -A __agenttool_kids=() __agenttool_inner=() __agenttool_grp=() __agenttool_ses=()
  local -A __agenttool_parent=() __agenttool_gm=() __agenttool_sm=() __agenttool_seen=()
  local -a __agenttool_entries __agenttool_lines __agenttool_queue=()
  __agenttool_entries=(/proc/[0-9]*/status)
  if ! [[ /proc/self/ns/pid -ef /proc/self/ns/pid ]] || ((\${#__agenttool_entries[@]} > 3000)); then
    builtin kill -s "$1" -- "-$__agenttool_job" 2>/dev/null
    [[ $1 != KILL ]] || __agenttool_forget_job "$__agenttool_job"
    return 0
  fi
  for __agenttool_f in "\${__agenttool_entries[@]}"; do
    __agenttool_o=\${__agenttool_f#/proc/}
    __agenttool_o=\${__agenttool_o%/status}
    [[ /proc/$__agenttool_o/ns/pid -ef /proc/self/ns/pid ]] || continue
    builtin mapfile -t -n 20 __agenttool_lines 2>/dev/null <"$__agenttool_f" || continue
    __agenttool_ppid= __agenttool_ns= __agenttool_group= __agenttool_session=
    for __agenttool_l in "\${__agenttool_lines[@]}"; do
      case $__agenttool_l in
        State:*Z*) continue 2 ;;
        PPid:*) __agenttool_ppid=\${__agenttool_l//[!0-9]/} ;;
        NSpid:*) __agenttool_ns=\${__agenttool_l##*[!0-9]} ;;
        NSpgid:*) __agenttool_group=\${__agenttool_l##*[!0-9]} ;;
        NSsid:*)
          __agenttool_session=\${__agenttool_l##*[!0-9]}
          break
          ;;
      esac
    done
    [[ -n $__agenttool_ppid && -n $__agenttool_ns && -n $__agenttool_group && -n $__agenttool_session ]] || continue
    __agenttool_inner[$__agenttool_o]=$__agenttool_ns
    __agenttool_grp[$__agenttool_o]=$__agenttool_group
    __agenttool_ses[$__agenttool_o]=$__agenttool_session
    __agenttool_parent[$__agenttool_o]=$__agenttool_ppid
    __agenttool_kids[$__agenttool_ppid]+=" $__agenttool_o"
    __agenttool_gm[$__agenttool_group]+=" $__agenttool_o"
    __agenttool_sm[$__agenttool_session]+=" $__agenttool_o"
    if [[ $__agenttool_ns == "$__agenttool_job" && -z \${__agenttool_jobs[$__agenttool_job]-} ]]; then
      __agenttool_queue+=("$__agenttool_o")
    fi
  done
  # The first line for this job: its group is the one the start line gave.
  if [[ -z \${__agenttool_jobs[$__agenttool_job]-} ]]; then
    __agenttool_jobs[$__agenttool_job]=1
    __agenttool_groups[$__agenttool_job:$__agenttool_job]=1
  fi
  # What was known of the job and is still there: its processes, and the members of its
  # groups and sessions (one with none left is dropped).
  for __agenttool_k in "\${!__agenttool_known[@]}"; do
    [[ $__agenttool_k == "$__agenttool_job:"* ]] || continue
    __agenttool_o=\${__agenttool_k#*:}
    if [[ -n \${__agenttool_inner[$__agenttool_o]-} ]]; then
      __agenttool_queue+=("$__agenttool_o")
    else
      builtin unset -v '__agenttool_known[$__agenttool_k]'
    fi
  done
  for __agenttool_k in "\${!__agenttool_groups[@]}"; do
    [[ $__agenttool_k == "$__agenttool_job:"* ]] || continue
    __agenttool_i=\${__agenttool_k#*:}
    if [[ -n \${__agenttool_gm[$__agenttool_i]-} ]]; then
      __agenttool_queue+=(\${__agenttool_gm[$__agenttool_i]})
    else
      builtin unset -v '__agenttool_groups[$__agenttool_k]'
    fi
  done
  for __agenttool_k in "\${!__agenttool_sessions[@]}"; do
    [[ $__agenttool_k == "$__agenttool_job:"* ]] || continue
    __agenttool_i=\${__agenttool_k#*:}
    if [[ -n \${__agenttool_sm[$__agenttool_i]-} ]]; then
      __agenttool_queue+=(\${__agenttool_sm[$__agenttool_i]})
    else
      builtin unset -v '__agenttool_sessions[$__agenttool_k]'
    fi
  done
  # Everything reached from there: children, and the members of the groups and
  # sessions a known process leads.
  __agenttool_h=0
  while ((__agenttool_h < \${#__agenttool_queue[@]})); do
    __agenttool_o=\${__agenttool_queue[__agenttool_h++]}
    [[ -z \${__agenttool_seen[$__agenttool_o]-} ]] || continue
    __agenttool_seen[$__agenttool_o]=1
    __agenttool_known[$__agenttool_job:$__agenttool_o]=1
    __agenttool_i=\${__agenttool_inner[$__agenttool_o]}
    if [[ \${__agenttool_grp[$__agenttool_o]} == "$__agenttool_i" &&
      -z \${__agenttool_groups[$__agenttool_job:$__agenttool_i]-} ]]; then
      __agenttool_groups[$__agenttool_job:$__agenttool_i]=1
      __agenttool_queue+=(\${__agenttool_gm[$__agenttool_i]})
    fi
    if [[ \${__agenttool_ses[$__agenttool_o]} == "$__agenttool_i" &&
      -z \${__agenttool_sessions[$__agenttool_job:$__agenttool_i]-} ]]; then
      __agenttool_sessions[$__agenttool_job:$__agenttool_i]=1
      __agenttool_queue+=(\${__agenttool_sm[$__agenttool_i]})
    fi
    __agenttool_queue+=(\${__agenttool_kids[$__agenttool_o]-})
  done
  if [[ $1 != KILL ]]; then
    [[ -z \${__agenttool_groups[$__agenttool_job:$__agenttool_job]-} ]] ||
      builtin kill -s "$1" -- "-$__agenttool_job" 2>/dev/null
    for __agenttool_o in "\${!__agenttool_seen[@]}"; do
      [[ \${__agenttool_grp[$__agenttool_o]} != "$__agenttool_job" ]] || continue
      __agenttool_p=\${__agenttool_parent[$__agenttool_o]}
      [[ \${__agenttool_grp[$__agenttool_p]-} == "$__agenttool_job" || -z \${__agenttool_seen[$__agenttool_p]-} ]] ||
        continue
      builtin kill -s "$1" "\${__agenttool_inner[$__agenttool_o]}" 2>/dev/null
    done
    return 0
  fi
  # The job first, so that it ends by this signal, not by what its children's end does
  # (a pending INT trap would exit 130).
  for __agenttool_o in "\${!__agenttool_seen[@]}"; do
    [[ \${__agenttool_inner[$__agenttool_o]} != "$__agenttool_job" ]] ||
      builtin kill -s KILL "$__agenttool_job" 2>/dev/null
  done
  for __agenttool_k in "\${!__agenttool_groups[@]}"; do
    [[ $__agenttool_k != "$__agenttool_job:"* ]] ||
      builtin kill -s KILL -- "-\${__agenttool_k#*:}" 2>/dev/null
  done
  for __agenttool_o in "\${!__agenttool_seen[@]}"; do
    builtin kill -s KILL "\${__agenttool_inner[$__agenttool_o]}" 2>/dev/null
  done
  __agenttool_forget_job "$__agenttool_job"
  return 0
}
# Forgets what __agenttool_signal_job_tree knew of job $1.
__agenttool_forget_job() {
  local __agenttool_k
  for __agenttool_k in "\${!__agenttool_known[@]}" "\${!__agenttool_groups[@]}" "\${!__agenttool_sessions[@]}"; do
    [[ $__agenttool_k == "$1:"* ]] || continue
    builtin unset -v '__agenttool_known[$__agenttool_k]' '__agenttool_groups[$__agenttool_k]'
    builtin unset -v '__agenttool_sessions[$__agenttool_k]'
  done
  builtin unset -v '__agenttool_jobs[$1]'
}`;

/**
 * The signaller: reads `<signal> <pgid>` lines from descriptor `$1` and signals that
 * job's group and what the job started (see SIGNAL_JOB_TREE), keeping what it learnt of
 * each job from its first line to its SIGKILL. At end of input it kills what the jobs it
 * still knows started, then runs `$2` if given (what ends the shell), else kills its own
 * session. It ignores interrupts, so that a signal meant for a command never ends it.
 */
export const SIGNALLER = `${KILL_SESSION}${SIGNAL_JOB_TREE}
__agenttool_signaller() {
  builtin trap '' INT TERM HUP
  local __agenttool_s __agenttool_p
  # What __agenttool_signal_job_tree knows of each job being interrupted (keys <job>,
  # <job>:<id>).
  local -A __agenttool_jobs=() __agenttool_known=() __agenttool_groups=() __agenttool_sessions=()
  while IFS=' ' builtin read -r -u "$1" __agenttool_s __agenttool_p; do
    case $__agenttool_p in '' | *[!0-9]* | 0 | 1) continue ;; esac
    case $__agenttool_s in
      INT | TERM | KILL) __agenttool_signal_job_tree "$__agenttool_s" "$__agenttool_p" ;;
    esac
  done
  # The shell is being replaced, or the server is gone: what interrupted commands left
  # in sessions of their own is not in the shell's.
  for __agenttool_p in "\${!__agenttool_jobs[@]}"; do
    __agenttool_signal_job_tree KILL "$__agenttool_p"
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
