/** The variables of the host's environment a shell gets when nothing else is configured. */
export const SHELL_ENVIRONMENT_DEFAULTS: readonly string[] = ['PATH', 'HOME', 'LANG', 'TERM'];

/**
 * What a shell with no terminal gets so that no command waits on one: git takes the
 * message it was given, or stops for want of one, rather than open an editor
 * (`GIT_EDITOR=true`: a `git commit` without `-m` fails at once, "Aborting commit due to
 * empty commit message"), asks for no password (`GIT_TERMINAL_PROMPT=0`), and pages
 * nothing (`PAGER`, `GIT_PAGER`). A name the allow-list takes from the host wins.
 */
const NON_INTERACTIVE: Readonly<Record<string, string>> = {
  GIT_EDITOR: 'true',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
};

/** A name a shell variable can have. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The environment for a shell: the variables of `source` named by the allow-list,
 * `PATH`, `HOME`, `LANG` and `TERM` and then `extra`, each only when set. Nothing else
 * of the host's environment (its credentials, say) reaches a command. Besides, since a
 * shell's commands have no terminal, `GIT_EDITOR=true`, `GIT_TERMINAL_PROMPT=0`,
 * `GIT_PAGER=cat` and `PAGER=cat`, unless `extra` names them and `source` sets them (a
 * `git commit` without `-m` fails at once rather than wait for an editor until its
 * timeout). Throws on a name that is not a variable name.
 */
export function shellEnvironment(
  source: NodeJS.ProcessEnv = process.env,
  extra: readonly string[] = [],
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...NON_INTERACTIVE };
  for (const name of [...SHELL_ENVIRONMENT_DEFAULTS, ...extra]) {
    if (!VARIABLE_NAME.test(name)) {
      throw new Error(
        `${JSON.stringify(name)} is not an environment variable name (letters, digits and _, not starting with a digit)`,
      );
    }
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
