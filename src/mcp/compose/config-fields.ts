import {
  isJsonObject,
  type ToolSetTransform,
  type ToolTransform,
  toolNameProblem,
} from '../../core';

type Fail = (path: string, problem: string) => never;

/** `parent.key`, or `parent["odd key"]` when the key is not a plain name. */
export function fieldPath(parent: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)
    ? `${parent}.${key}`
    : `${parent}[${JSON.stringify(key)}]`;
}

const SET_KEYS = new Set(['include', 'exclude', 'transform', 'includeTags', 'excludeTags']);
const TOOL_KEYS = new Set(['rename', 'description', 'fixed', 'tags']);

/**
 * A `tools` section (see `ToolSetTransform`) checked member by member, so a mistake is
 * reported where it is: `servers.json: mcpServers.github.tools.transform.search.rename:
 * must be a string`. Unknown members are refused, the section being agenttool's own.
 */
export function checkToolSetTransform(
  value: unknown,
  at: string,
  fail: Fail,
): ToolSetTransform | undefined {
  if (value === undefined) return undefined;
  if (!isJsonObject(value)) {
    return fail(at, 'must be an object: { include, exclude, transform, includeTags, excludeTags }');
  }
  for (const key of Object.keys(value)) {
    if (!SET_KEYS.has(key)) {
      fail(fieldPath(at, key), `is not a member of a tools section (${[...SET_KEYS].join(', ')})`);
    }
  }
  for (const key of ['include', 'exclude', 'includeTags', 'excludeTags']) {
    names(value[key], `${at}.${key}`, fail);
  }
  const transform = value['transform'];
  if (transform !== undefined) {
    if (!isJsonObject(transform))
      fail(`${at}.transform`, 'must be an object of transforms by tool name');
    for (const [tool, spec] of Object.entries(transform)) {
      checkToolTransform(spec, fieldPath(`${at}.transform`, tool), fail);
    }
  }
  return value;
}

function checkToolTransform(value: unknown, at: string, fail: Fail): ToolTransform {
  if (!isJsonObject(value))
    return fail(at, 'must be an object: { rename, description, fixed, tags }');
  for (const key of Object.keys(value)) {
    if (!TOOL_KEYS.has(key)) {
      fail(
        fieldPath(at, key),
        `is not a member of a tool's transform (${[...TOOL_KEYS].join(', ')})`,
      );
    }
  }
  const rename = value['rename'];
  if (rename !== undefined) {
    if (typeof rename !== 'string') fail(`${at}.rename`, 'must be a string');
    const problem = toolNameProblem(rename);
    if (problem !== undefined) fail(`${at}.rename`, problem);
  }
  if (value['description'] !== undefined && typeof value['description'] !== 'string') {
    fail(`${at}.description`, 'must be a string');
  }
  if (value['fixed'] !== undefined && !isJsonObject(value['fixed'])) {
    fail(`${at}.fixed`, 'must be an object of argument values by name');
  }
  names(value['tags'], `${at}.tags`, fail);
  return value;
}

function names(value: unknown, at: string, fail: Fail): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v !== '')) {
    fail(at, 'must be a list of non-empty strings');
  }
}
