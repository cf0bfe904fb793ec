// A code cache for the package's own files (copied into dist/pkg/ by scripts/bundle.js;
// installed by the agenttool/code-cache entry, which the command's launcher requires, and
// an app may, before the rest of the package loads).
//
// Node's compile cache keeps the code V8 compiles before a file runs: the file's top
// level and the functions V8 guesses will be called at once. Every other function is
// compiled on its first call, by every start, and a start calls a great many (the MCP
// SDK's schemas built as it loads, the server's set-up, the first requests). A cache
// V8 makes after those calls holds them as well: `serve` and `workspace` start 9-20 ms
// sooner with one (docs/benchmarks.md, "A code cache made after the start").
//
// So the package's files are compiled here with such a cache: read, when one was made
// for this very file (its build, size and time: a file changed after the build, as
// patch-package changes one, is another file) by this Node, and made once the start is
// over (WRITE_AFTER_MS later, or at exit if that is sooner) for the files that had none,
// or whose cache V8 refused. A start without one costs more than Node's own compile
// cache would (each function is compiled as it is first called): once per build.
// Anything else (a file outside the package, an ES module) is compiled by Node as
// before, its own compile cache included. The cache lives in Node's compile cache
// folder, which a workspace's sandbox keeps read-only: it is code the next start runs.
'use strict';
const Module = require('node:module');
const vm = require('node:vm');
const fs = require('node:fs');
const path = require('node:path');

/** How long after the first file compiled here the caches are made: the start is over. */
const WRITE_AFTER_MS = 2000;

// A line of its own, so that the file's lines keep their numbers (lineOffset -1).
const WRAP_START = '(function (exports, require, module, __filename, __dirname) {\n';
const WRAP_END = '\n})';

/**
 * Compiles the files under `root` but `leftToNode` (paths relative to it, written with
 * `/`: those that make a dynamic `import()`, which a script compiled apart could make only
 * through an experimental hook of Node's) with code caches (see above), kept beside Node's own
 * compile cache, which must be on: in a folder named as Node names its own (the Node
 * version, the architecture and a hash of the V8 flags, for the code V8 accepts) and
 * after `build`, the package's build, for the code it was made from. Returns that folder,
 * or undefined where it does nothing: without Node's compile cache, where Node's loader
 * does not compile CommonJS through `Module.prototype._compile` (Node 22 and 24 do), or
 * where the folder is not the user's alone (see ownedFolder).
 */
function installCodeCache(root, build, leftToNode = []) {
  const original = Module.prototype._compile;
  const nodeCache = Module.getCompileCacheDir?.();
  if (typeof original !== 'function' || nodeCache === undefined) return undefined;
  const inside = root.endsWith(path.sep) ? root : root + path.sep;
  const byNode = new Set(leftToNode.map((file) => path.join(root, ...file.split('/'))));
  const cacheRoot = path.dirname(nodeCache);
  const debug = /\bagenttool\b/.test(process.env.NODE_DEBUG ?? '');
  const owned = ownedFolder(
    path.join(cacheRoot, 'executed', `${path.basename(nodeCache)}-${build}`),
    cacheRoot,
  );
  if (owned.refused !== undefined) {
    if (debug) process.stderr.write(`agenttool: code cache off: ${owned.refused}\n`);
    return undefined;
  }
  // The real path, links resolved: the one whose folders were looked at.
  const folder = owned.folder;
  const executed = path.dirname(folder);
  const pending = [];
  let timer;
  // A file without a cache is compiled here only if its cache can then be written;
  // otherwise (a read-only file system) every start would compile without one, slower
  // than Node's own cache, so Node does.
  let writable;
  const canWrite = () => {
    if (writable === undefined) {
      try {
        fs.accessSync(folder, fs.constants.W_OK);
        writable = true;
      } catch (error) {
        writable = false;
        if (debug) process.stderr.write(`agenttool: code cache folder not writable: ${error}\n`);
      }
    }
    return writable;
  };

  // The text compiled is the file's unless something transforms it on the way (a
  // coverage tool's hook): its length is in the name, as the file's size and time are.
  const cacheFile = (filename, content) => {
    const stat = fs.statSync(filename);
    const name = path.relative(root, filename).split(path.sep).join('~');
    return path.join(folder, `${name}-${stat.size}-${Math.trunc(stat.mtimeMs)}-${content.length}`);
  };

  const writeAll = () => {
    forgetOldBuilds(executed, folder);
    const written = pending.splice(0);
    if (!canWrite()) return;
    for (const { script, file } of written) {
      try {
        const temporary = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, script.createCachedData());
        // Renamed into place: a start reading it meanwhile sees all of it or none.
        fs.renameSync(temporary, file);
        if (debug) process.stderr.write(`agenttool: code cache written for ${file}\n`);
      } catch (error) {
        // A file that cannot be written (a full disk): the next start compiles again.
        if (debug) process.stderr.write(`agenttool: code cache not written: ${error}\n`);
      }
    }
  };

  Module.prototype._compile = function compileWithCodeCache(content, filename, format) {
    if (
      (format !== undefined && format !== 'commonjs') ||
      typeof filename !== 'string' ||
      !filename.startsWith(inside) ||
      byNode.has(filename)
    ) {
      return Reflect.apply(original, this, [content, filename, format]);
    }
    const file = cacheFile(filename, content);
    let cachedData;
    try {
      cachedData = fs.readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    if (cachedData === undefined && !canWrite()) {
      return Reflect.apply(original, this, [content, filename, format]);
    }
    const source = WRAP_START + content.replace(/^#!.*/, '') + WRAP_END;
    const script = new vm.Script(source, {
      filename,
      lineOffset: -1,
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (debug) {
      const how =
        cachedData === undefined ? 'none' : script.cachedDataRejected ? 'refused' : 'used';
      process.stderr.write(`agenttool: code cache ${how} for ${filename}\n`);
    }
    if (cachedData === undefined || script.cachedDataRejected === true) {
      pending.push({ script, file });
      if (timer === undefined) {
        timer = setTimeout(writeAll, WRITE_AFTER_MS).unref();
        // A command that ends sooner (a call, a list) makes them as it exits.
        process.once('exit', writeAll);
      }
    }
    const wrapper = script.runInThisContext();
    const require = Module.createRequire(filename);
    return Reflect.apply(wrapper, this.exports, [
      this.exports,
      require,
      this,
      filename,
      path.dirname(filename),
    ]);
  };
  return folder;
}

/**
 * Makes `dir` where it is missing (mode 0700) and returns its real path, or why it is not
 * the user's alone: `{ folder }` or `{ refused }`. The caches are code a process runs, and
 * V8 checks only that a cache was made for a text of the same length: whoever could write
 * one, or put a folder of theirs in its place, could run code there (a folder made first
 * by someone else in /tmp, where Node's compile cache is by default). So, on the real path
 * (no link in it), `ownFrom` and every folder below it must be this user's, every folder
 * above it this user's or root's, and none of them writable by another user, unless it
 * has the sticky bit (as /tmp), which lets no one rename or remove what is not theirs. A
 * folder its group can write to is the user's alone where the group is theirs alone, as
 * the systems that give each user a group of their own (uid and gid the same, umask 002)
 * make them. The folders above `dir` that exist are looked at before anything is made.
 * On Windows (no uid) only that it is a folder is checked: its ACLs are not read here.
 */
function ownedFolder(dir, ownFrom) {
  let existing = path.resolve(dir);
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) {
    existing = path.dirname(existing);
  }
  const before = refusal(existing, ownFrom);
  if (before !== undefined) return { refused: before };
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    return { refused: `its folder cannot be made: ${error}` };
  }
  const after = refusal(dir, ownFrom);
  return after === undefined ? { folder: fs.realpathSync(dir) } : { refused: after };
}

/** Why the existing folder `dir` is not the user's alone (see ownedFolder), or undefined. */
function refusal(dir, ownFrom) {
  let real;
  let ownBelow;
  try {
    real = fs.realpathSync(dir);
    // ownFrom may not exist yet (a folder of it, to be made): its nearest existing folder.
    let own = path.resolve(ownFrom);
    while (!fs.existsSync(own) && path.dirname(own) !== own) own = path.dirname(own);
    ownBelow = fs.realpathSync(own);
  } catch (error) {
    return `${error}`;
  }
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  for (let at = real; ; at = path.dirname(at)) {
    let stat;
    try {
      stat = fs.lstatSync(at);
    } catch (error) {
      return `${error}`;
    }
    if (!stat.isDirectory()) return `${at} is not a directory`;
    if (uid !== undefined) {
      const mustBeOwn = at === ownBelow || at.startsWith(ownBelow + path.sep);
      if (stat.uid !== uid && (mustBeOwn || stat.uid !== 0)) {
        return `${at} belongs to user ${stat.uid}, not ${uid}`;
      }
      const sticky = (stat.mode & 0o1000) !== 0;
      if ((stat.mode & 0o002) !== 0 && !sticky) return `${at} can be written by any user`;
      if ((stat.mode & 0o020) !== 0 && !sticky && !(stat.gid === gid && gid === uid)) {
        return `${at} can be written by group ${stat.gid}`;
      }
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/** How long the caches of another build (an older agenttool, another Node) are kept. */
const KEEP_OTHER_BUILDS_MS = 30 * 24 * 60 * 60 * 1000;

/** Removes the caches of other builds unused for KEEP_OTHER_BUILDS_MS: the folder stays small. */
function forgetOldBuilds(executed, current) {
  let names;
  try {
    names = fs.readdirSync(executed);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const other = path.join(executed, name);
    if (other === current) continue;
    try {
      if (now - fs.statSync(other).mtimeMs > KEEP_OTHER_BUILDS_MS) {
        fs.rmSync(other, { recursive: true, force: true });
      }
    } catch {
      // gone already, or not ours to remove
    }
  }
}

module.exports = { installCodeCache, ownedFolder };
