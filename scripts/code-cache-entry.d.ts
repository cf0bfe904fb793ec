/**
 * `agenttool/code-cache`: an app's server starts sooner when it imports this entry first,
 * before anything else of agenttool's (or starts Node with
 * `--require agenttool/code-cache`).
 *
 * Node's compile cache keeps only the code V8 compiles before a file runs, so every start
 * compiles again the functions it calls: the MCP SDK's schemas, the server's set-up, the
 * first requests. Required first, this entry has agenttool's own files (the package's
 * bundle, the MCP SDK and zod in it) compiled with a V8 code cache made once a start is
 * over (2 s after it, or at exit), and used by the next start; what the `agenttool`
 * command does for itself. The first start after an install or an upgrade compiles
 * without one and makes it. The app's own files get Node's compile cache where the entry
 * turns it on, and nothing more.
 *
 * It turns on Node's compile cache where the app has not (`module.enableCompileCache()`
 * or `NODE_COMPILE_CACHE`), in `agenttool/node-compile-cache` of the user's cache folder
 * (`$XDG_CACHE_HOME`, or `~/.cache`), and keeps the code cache beside it, in `executed/`,
 * one folder per Node version, V8 flags and agenttool build. Both are code the next start
 * runs, so each stays off where its folder is not the user's alone: it, and the folders
 * from the cache's own down, must be the user's, every folder above them the user's or
 * root's, and none writable by another user unless sticky (as /tmp). On Windows only
 * that they are folders is checked. Both stay off with `NODE_DISABLE_COMPILE_CACHE=1`.
 * A shell that agenttool sandboxes cannot write there.
 *
 * An app bundled with agenttool inside it (esbuild, rolldown) is not helped: the cache
 * covers the files of the installed package only.
 *
 * @packageDocumentation
 */

/**
 * The folder of this process's code cache, or `undefined` where it is off (Node's
 * compile cache off or failed, or the folder not the user's alone).
 * `NODE_DEBUG=agenttool` says why, and for each file whether a cache was used: a loader
 * of the app's own that compiles CommonJS itself (a `--import` hook that returns its
 * source) bypasses the cache, and then no file is listed.
 */
export declare const codeCacheFolder: string | undefined;
