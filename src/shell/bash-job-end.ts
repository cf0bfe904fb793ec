import { bashQuote } from './bash-words';
import { MARKER_HEX_DIGITS, MARKER_LENGTH, MARKER_PREFIX } from './command-message';

/**
 * What the shell runs after each job (see SERVE_LINE in bash-driver.ts): it waits for
 * the job's end (a job that stopped itself too), then reads the end line that follows
 * the command on the shell's input and prints it with the job's status; a job killed
 * before it took all of its command is told apart, and the command said not to have run.
 */
export const JOB_END_SCRIPT = `
__agenttool_end_line=${bashQuote(`E (${MARKER_PREFIX}[0-9a-f]{${MARKER_HEX_DIGITS}})$`)}
# In the shell, after the job: its status, then the end line with the marker that
# follows the command on the shell's input (read only now that the job has ended).
__agenttool_ended() {
  builtin wait "$1"
  __agenttool_last=$?
  # With job control, wait also returns when the job stops (with 128 + STOP, TSTP, TTIN
  # or TTOU): a job (or the program it became) that stops itself is waited for still, so
  # that the command's interrupt or timeout ends it, as it would end a bash -c that
  # stops, rather than the command being reported done and the job left stopped.
  if ((__agenttool_last >= 147 && __agenttool_last <= 150)) && builtin kill -0 "$1" 2>/dev/null; then
    __agenttool_wait_stopped "$1"
  fi
  # Seen stopped, then gone before it was asked again (killed by the interrupt between
  # the wait and kill -0): its own end is what it ended with, not the stop (bash keeps
  # it for wait). 127 is wait's own "no such job".
  if ((__agenttool_last >= 147 && __agenttool_last <= 150)); then
    builtin wait "$1" 2>/dev/null
    __agenttool_ws=$?
    ((__agenttool_ws == 127)) || __agenttool_last=$__agenttool_ws
  fi
  # Which state the next job restores (and a line when this one could not save its own).
  __agenttool_kept
  # The end line, taken whole in one read of its length (a line is read a byte at a
  # time), and checked by patterns (a regular expression with a count costs bash ~30 us
  # to compile, each time). At the end of input, the driver is gone, and so is the shell.
  IFS= builtin read -r -N ${MARKER_LENGTH + 3} __agenttool_e || builtin exit 0
  if [[ $__agenttool_e == 'E ${MARKER_PREFIX}'* && $__agenttool_e == *$'\\n' &&
    \${__agenttool_e:${MARKER_PREFIX.length + 2}:${MARKER_HEX_DIGITS}} != *[!0-9a-f]* ]]; then
    __agenttool_e=\${__agenttool_e%$'\\n'}
  else
    # The job ended before it had taken all of its command (it was killed while it
    # waited): what was read is the rest of the command, or of its head, and maybe the
    # start of the end line (read drops the NUL between). Take the rest of that line:
    # it ends with the end line itself when what was left of the command held no
    # newline after what was read; else take the command up to the NUL, and the end
    # line. Then say that the command did not run.
    if [[ $__agenttool_e == *$'\\n' ]]; then
      __agenttool_e=\${__agenttool_e%$'\\n'}
    else
      IFS= builtin read -r __agenttool_x
      __agenttool_e+=$__agenttool_x
    fi
    if [[ $__agenttool_e =~ $__agenttool_end_line ]]; then
      __agenttool_e="E \${BASH_REMATCH[1]}"
    else
      IFS= builtin read -r -d '' __agenttool_e
      IFS= builtin read -r __agenttool_e || builtin exit 0
    fi
    builtin printf 'agenttool: the job that was to run this command ended before it started it (exit status %d); the command did not run\\n' "$__agenttool_last"
  fi
  builtin printf '%s E %d\\n' "\${__agenttool_e#E }" "$__agenttool_last"
  __agenttool_e=
}
# Waits for a stopped job to end: asks again every 50 ms, and sleeps in between in a
# read with a timeout from a pipe of its own, whose write end it holds (so no one writes
# it, and it never ends). Not wait -f, which waits for the end by asking again at once,
# at full CPU, for as long as the job is stopped. Its notice of a job killed meanwhile
# goes nowhere: the shell's standard error is kept for what says why it ended.
__agenttool_wait_stopped() {
  local __agenttool_f=
  { exec {__agenttool_f}<> <(:); } 2>/dev/null
  while ((__agenttool_last >= 147 && __agenttool_last <= 150)) && builtin kill -0 "$1" 2>/dev/null; do
    # Without the pipe (it could not be made), it asks again at once, as wait -f does.
    [[ -z $__agenttool_f ]] || builtin read -r -t 0.05 -u "$__agenttool_f" _
    builtin wait "$1" 2>/dev/null
    __agenttool_last=$?
  done
  [[ -z $__agenttool_f ]] || exec {__agenttool_f}<&-
}
`;
