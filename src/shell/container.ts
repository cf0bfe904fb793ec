import { signallerScript } from './signaller';
import type { ShellLaunch } from './bash-process';

/** Runs the shell in a container that already runs, through `docker exec` or `podman exec`. */
export interface ContainerOptions {
  /** The container's name or id. */
  readonly name: string;
  /** The container runtime's command: `docker` (the default) or `podman`, or a path to one. */
  readonly runtime?: string;
  /** The user to run bash as inside the container (`--user`); the container's default if absent. */
  readonly user?: string;
  /**
   * The directory bash starts in, inside the container; the container's own working
   * directory if absent (the shell's `cwd` is a host path and is not used).
   */
  readonly workdir?: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Checks container options, throwing a `TypeError` that names the setting. */
export function checkContainerOptions(options: ContainerOptions): void {
  if (typeof options.name !== 'string' || !NAME.test(options.name)) {
    throw new TypeError(
      `container.name must be a container name or id (letters, digits, _ . -), got ${JSON.stringify(options.name)}`,
    );
  }
  if (
    options.runtime !== undefined &&
    (typeof options.runtime !== 'string' || options.runtime === '')
  ) {
    throw new TypeError('container.runtime must be a command such as "docker" or "podman"');
  }
  for (const key of ['user', 'workdir'] as const) {
    const value = options[key];
    if (
      value !== undefined &&
      (typeof value !== 'string' || value === '' || value.startsWith('-'))
    ) {
      throw new TypeError(`container.${key} must be a non-empty string not starting with "-"`);
    }
  }
}

/**
 * How to start bash in the container: `<runtime> exec -i [--user U] [--workdir D]
 * [--env NAME …] <name> bash --noprofile --norc`. The container's process gets the
 * environment given, never this process's; the runtime itself gets what it needs to
 * reach its daemon. A second `exec` runs the
 * signaller, in the container's PID namespace, since the exec'd shell gets no
 * descriptor but its standard streams.
 */
export function containerLaunch(
  options: ContainerOptions,
  env: NodeJS.ProcessEnv,
  command: readonly [string, ...string[]],
): ShellLaunch {
  checkContainerOptions(options);
  const runtime = options.runtime ?? 'docker';
  const flags = [
    ...(options.user === undefined ? [] : ['--user', options.user]),
    ...(options.workdir === undefined ? [] : ['--workdir', options.workdir]),
  ];
  // Values travel in the runtime's environment (`--env NAME`), not in its arguments,
  // which any user of the host can read; PATH and HOME are the runtime's own there.
  const runtimeEnv = runtimeEnvironment();
  const envFlags: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (key === 'PATH' || key === 'HOME') envFlags.push('--env', `${key}=${value}`);
    else {
      envFlags.push('--env', key);
      runtimeEnv[key] = value;
    }
  }
  return {
    argv: [runtime, 'exec', '-i', ...flags, ...envFlags, options.name, ...command],
    env: runtimeEnv,
    given: Object.keys(env),
    cwd: undefined,
    stateDirs: ['/dev/shm', '/tmp'],
    signaller: {
      argv: [
        runtime,
        'exec',
        '-i',
        ...(options.user === undefined ? [] : ['--user', options.user]),
        options.name,
        'bash',
        '--noprofile',
        '--norc',
        '-c',
        signallerScript(),
      ],
    },
  };
}

/** What the runtime command needs of this process's environment to reach its daemon. */
function runtimeEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of [
    'PATH',
    'HOME',
    'DOCKER_HOST',
    'DOCKER_CONTEXT',
    'DOCKER_CONFIG',
    'DOCKER_CERT_PATH',
    'DOCKER_TLS_VERIFY',
    'CONTAINER_HOST',
    'CONTAINER_CONNECTION',
    'XDG_RUNTIME_DIR',
  ]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
