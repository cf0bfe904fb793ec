import { readFileSync } from 'node:fs';
import { errorMessage, type ScaleOutOptions } from './public-api';
import { CliError, ExitCode } from './exit-codes';

/** The environment variable that holds the request-state key every instance shares. */
export const REQUEST_STATE_KEY_ENV = 'AGENTTOOL_REQUEST_STATE_KEY';

/** What `serve` reads of its options for scale-out (see `ServeOptions`). */
export interface ScaleOutFlags {
  readonly redis?: string | undefined;
  readonly instance?: string | undefined;
  readonly advertise?: string | undefined;
  readonly requestStateKeyFile?: string | undefined;
  readonly env?: NodeJS.ProcessEnv | undefined;
}

/** The scale-out options the command line gives, checked; undefined without --redis. */
export function scaleOutOptions(options: ScaleOutFlags): ScaleOutOptions | undefined {
  if (options.redis === undefined) {
    const needsRedis = (
      [
        ['--instance', options.instance],
        ['--advertise', options.advertise],
        ['--request-state-key-file', options.requestStateKeyFile],
      ] as const
    ).find(([, value]) => value !== undefined);
    if (needsRedis !== undefined) {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: ${needsRedis[0]} applies to --redis only`,
      );
    }
    return undefined;
  }
  let key = (options.env ?? process.env)[REQUEST_STATE_KEY_ENV];
  if (options.requestStateKeyFile !== undefined) {
    try {
      key = readFileSync(options.requestStateKeyFile, 'utf8').trim();
    } catch (error) {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: --request-state-key-file: cannot read ${options.requestStateKeyFile}: ${errorMessage(error)}`,
      );
    }
  }
  if (key === undefined || key === '') {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --redis needs the request-state key every instance shares: set ${REQUEST_STATE_KEY_ENV} or give --request-state-key-file (at least 32 bytes, e.g. openssl rand -hex 32)`,
    );
  }
  // The server's own check, made here so that it is the command's error, before any start.
  if (Buffer.byteLength(key, 'utf8') < 32) {
    const from =
      options.requestStateKeyFile !== undefined
        ? `--request-state-key-file ${options.requestStateKeyFile}`
        : REQUEST_STATE_KEY_ENV;
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: the request-state key (${from}) is ${Buffer.byteLength(key, 'utf8')} bytes; it must be at least 32 (e.g. openssl rand -hex 32)`,
    );
  }
  return {
    redisUrl: options.redis,
    requestStateKey: key,
    ...(options.instance === undefined ? {} : { instanceId: options.instance }),
  };
}

// A Redis URL as it may be printed: without its password.
export function redacted(url: string | undefined): string {
  if (url === undefined) return '';
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
