// What the shell's script says about bash itself: the variables and options that are
// bash's or the persistent shell's own, never a command's state, and how to quote a word.

/** Variables bash maintains itself: never saved, restored or unset. */
export const SPECIAL_VARIABLES = [
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
export const SHELL_OWNED_OPTIONS = ['monitor', 'history', 'emacs', 'vi', 'interactive-comments'];

/** Quotes a string for bash: single quotes, with `'` written as `'\''`. */
export function bashQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
