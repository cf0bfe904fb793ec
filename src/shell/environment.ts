/** The variables of the host's environment a shell gets when nothing else is configured. */
export const SHELL_ENVIRONMENT_DEFAULTS: readonly string[] = ['PATH', 'HOME', 'LANG', 'TERM'];

/** A name a shell variable can have. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The environment for a shell: the variables of `source` named by the allow-list,
 * `PATH`, `HOME`, `LANG` and `TERM` and then `extra`, each only when set. Nothing else
 * of the host's environment (its credentials, say) reaches a command. Throws on a name
 * that is not a variable name.
 */
export function shellEnvironment(
  source: NodeJS.ProcessEnv = process.env,
  extra: readonly string[] = [],
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
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
