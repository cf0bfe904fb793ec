// import() of a file named at run time, in a file of its own: the bundle makes it an
// entry of its own (dist/pkg/import-file.js), so that cli.js holds no dynamic import and
// is compiled with the package's code cache, which a script with one could use only
// through an experimental hook of Node's (scripts/code-cache.js).
import { pathToFileURL } from 'node:url';

/** The namespace of the module at `file` (absolute): an ES module's, or a CommonJS one's. */
export function importFile(file: string): Promise<Record<string, unknown>> {
  return import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;
}
