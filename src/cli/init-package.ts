import { CliError, ExitCode } from './exit-codes';
import { type ModuleKind, NPM_PLACEHOLDER_TEST } from './init-templates';

/** A package.json read as an object of its own keys. */
type Manifest = Record<string, unknown>;

/** The user's package.json, read: refused when it is not a JSON object. */
export function readManifest(text: string, file: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool init: ${file} is not valid JSON (${(error as Error).message}); fix it, or init an empty folder`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool init: ${file} is not a JSON object`);
  }
  return value as Manifest;
}

/** The module kind a package.json states: `"type": "module"` is ES modules, else CommonJS (Node's rule). */
export function kindOf(manifest: Manifest): ModuleKind {
  return manifest['type'] === 'module' ? 'esm' : 'cjs';
}

/**
 * The user's package.json with what the project needs added: each script, dependency
 * and field it lacks. A value it already has is kept, and said so in `notes`, but for
 * npm's placeholder test script, which is replaced (and said so). Key order and the rest
 * of the file are the user's.
 */
export function mergeManifest(
  manifest: Manifest,
  wanted: Manifest,
  file: string,
): { text: string; notes: string[] } {
  const merged: Manifest = { ...manifest };
  const notes: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    const mine = merged[key];
    if (mine === undefined) {
      merged[key] = value;
      continue;
    }
    if (isRecord(value) && isRecord(mine)) {
      const section: Manifest = { ...mine };
      for (const [name, entry] of Object.entries(value)) {
        const current = section[name];
        if (current === undefined) {
          section[name] = entry;
        } else if (key === 'scripts' && name === 'test' && current === NPM_PLACEHOLDER_TEST) {
          section[name] = entry;
          notes.push(
            `${file}: replaced npm's placeholder scripts.test with ${JSON.stringify(entry)}`,
          );
        } else if (JSON.stringify(current) !== JSON.stringify(entry)) {
          notes.push(
            `${file}: kept your ${key}.${name} (${JSON.stringify(current)}); agenttool init would write ${JSON.stringify(entry)}`,
          );
        }
      }
      merged[key] = section;
    } else if (JSON.stringify(mine) !== JSON.stringify(value)) {
      notes.push(
        `${file}: kept your ${key} (${JSON.stringify(mine)}); agenttool init would write ${JSON.stringify(value)}`,
      );
    }
  }
  return { text: `${JSON.stringify(merged, null, 2)}\n`, notes };
}

function isRecord(value: unknown): value is Manifest {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
