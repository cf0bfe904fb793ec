// The MCP SDK's zod schemas, built on first use instead of as the bundle loads (applied by
// scripts/bundle.js to the chunk it bundles the SDK into).
//
// The SDK's protocol module builds some 180 zod schemas as it loads (the neutral types
// module, and the OAuth one), then registers each under its type's name, reading them all.
// A server reads few of them (its dispatch has registries of its own, built on first use),
// and building them is a good part of every start: 8-9 ms of an app's start to its first
// `tools/list` on a 2-core machine, measured with the code cache on (docs/benchmarks.md).
//
// In the bundle each module is a function that assigns its top-level names (`var X;` at the
// chunk's top, `X = <expression>;` in the function, rolldown's `__esmMin`), and every use of
// a name elsewhere in the chunk reads the variable. Here each `<Name>Schema = <expression>;`
// of the two modules becomes a function at the chunk's top, `<Name>Schema$lazy()`, that
// runs the module (once, as before: the rest of its statements, which build no schema)
// and then the expression the first time it is called, and every read of the variable in
// the chunk calls it (found with a scope analysis: a local of the same name is another
// variable). A schema is then built when first read, after the module's other statements
// have run, as the SDK's own statements read them; the value is the same object ever after.
// The registration reads them through getters (REGISTRATION, below). The 2025 era's set,
// which the SDK builds whole on the era's first request, is made lazy the same way inside
// its builder (withLazyEraSchemas, below). Anything that differs from these shapes stops
// the build, with what differed: the SDK must be looked at again.
'use strict';
const acorn = require('acorn');
const eslintScope = require('eslint-scope');
const { replaceEachOnce } = require('./replace-once');

/** The modules whose schemas are made lazy: their `__esmMin` functions' names. */
const MODULES = [/^init_schemas_[\w$]+$/, /^init_auth_[\w$]+$/];

/** The least number of schemas each must hold: fewer means the SDK moved them. */
const AT_LEAST = [150, 10];

/**
 * The SDK's registration of its types by name reads every schema; these exact texts (each
 * found once) register getters instead, and make the OAuth schemas' object one of getters.
 */
const REGISTRATION = [
  [
    `function register(key, schema) {
	const name = key.slice(0, -6);
	_specTypeSchemas[name] = schema;
	_isSpecType[name] = (v) => schema.safeParse(v).success;
}`,
    `function register(key, schemaOf) {
	const name = key.slice(0, -6);
	Object.defineProperty(_specTypeSchemas, name, { get: schemaOf, enumerable: true });
	_isSpecType[name] = (v) => schemaOf().safeParse(v).success;
}`,
  ],
  [
    '\tfor (const key of SPEC_SCHEMA_KEYS) register(key, schemas_exports[key]);',
    '\tfor (const key of SPEC_SCHEMA_KEYS) register(key, () => schemas_exports[key]);',
  ],
  [
    '\tfor (const [key, schema] of Object.entries(authSchemas)) register(key, schema);',
    '\tfor (const key of Object.keys(authSchemas)) register(key, () => authSchemas[key]);',
  ],
];

/** `authSchemas = { A, B, ... };`: its shorthand properties become getters. */
const AUTH_SCHEMAS = /\tauthSchemas = \{\n((?:\t\t[\w$]+,?\n)+)\t\};\n/;

/** Replaces each text of REGISTRATION, and the OAuth schemas' object, in `code`. */
function withLazyRegistration(code, fileName) {
  const out = replaceEachOnce(code, REGISTRATION, {
    where: fileName,
    what: "the SDK's registration of its types",
    lookAt: 'scripts/lazy-sdk-schemas.js',
  });
  const auth = AUTH_SCHEMAS.exec(out);
  if (auth === null) {
    throw new Error(
      `${fileName}: the SDK's authSchemas object is not as scripts/lazy-sdk-schemas.js expects`,
    );
  }
  const names = auth[1]
    .split('\n')
    .map((line) => line.trim().replace(/,$/, ''))
    .filter(Boolean);
  const getters = names.map((name) => `\t\tget ${name}() {\n\t\t\treturn ${name};\n\t\t}`);
  return out.replace(AUTH_SCHEMAS, () => `\tauthSchemas = {\n${getters.join(',\n')}\n\t};\n`);
}

/** Every node of an ESTree tree, depth first, with `visit(node)`. */
function walk(node, visit) {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit);
    return;
  }
  if (node === null || typeof node !== 'object' || typeof node.type !== 'string') return;
  visit(node);
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'loc' && value !== null && typeof value === 'object') walk(value, visit);
  }
}

/** The function an `init_x = <helper>.__esmMin(() => { ... })` declaration holds. */
function moduleFunction(declarator) {
  const call = declarator.init;
  if (
    call?.type === 'CallExpression' &&
    call.callee.type === 'MemberExpression' &&
    call.callee.property.name === '__esmMin' &&
    call.arguments[0]?.type === 'ArrowFunctionExpression' &&
    call.arguments[0].body.type === 'BlockStatement'
  ) {
    return call.arguments[0];
  }
  return undefined;
}

/** The chunk `code` with the SDK's schemas built on first read (see above and below). */
function withLazySdkSchemas(code, fileName) {
  return withLazyEraSchemas(withLazyModuleSchemas(code, fileName), fileName);
}

/** Parses a chunk and analyses its scopes (the top level a function's, as in CommonJS). */
function analysed(source) {
  const ast = acorn.parse(source, { ecmaVersion: 'latest', sourceType: 'script', ranges: true });
  const scopes = eslintScope.analyze(ast, {
    ecmaVersion: 2022,
    sourceType: 'script',
    nodejsScope: true,
  });
  return { ast, scopes, topScope: scopes.globalScope.childScopes[0] };
}

/** `source` with each `{ start, end, text }` of `edits` (not overlapping) made. */
function edited(source, edits) {
  let out = '';
  let at = 0;
  for (const { start, end, text } of [...edits].sort((a, b) => a.start - b.start)) {
    out += source.slice(at, start) + text;
    at = end;
  }
  return out + source.slice(at);
}

/**
 * The 2025 era's schemas, built on first read. The first request of the era has the SDK
 * build the era's whole set (`buildSchemas2025()`, some 140 schemas: 6-9 ms) to look up
 * the one it needs, in maps that read all of them (`registryMaps()`). Here each
 * `const <Name>Schema = <expression>;` of the builder becomes a function of the builder's
 * own that builds it once, its reads call it, and the object the builder returns and the
 * maps read through getters that build a value once and then hold it as their own.
 */
function withLazyEraSchemas(source, fileName) {
  const { ast, scopes } = analysed(source);
  const fail = (what) => {
    throw new Error(`${fileName}: ${what}; look at scripts/lazy-sdk-schemas.js again`);
  };
  const functionNamed = (pattern) => {
    const found = ast.body.filter(
      (node) => node.type === 'FunctionDeclaration' && pattern.test(node.id.name),
    );
    if (found.length !== 1) fail(`expected one function named ${pattern} (found ${found.length})`);
    return found[0];
  };
  // `function buildSchemas2025() { return memo ??= build(); }`: the builder's name.
  const memoized = functionNamed(/^buildSchemas2025$/).body.body;
  const call = memoized.length === 1 ? memoized[0].argument?.right : undefined;
  if (call?.type !== 'CallExpression' || call.callee.type !== 'Identifier') {
    fail('buildSchemas2025() is not `return memo ??= build();`');
  }
  const builder = functionNamed(new RegExp(`^${call.callee.name.replace(/\$/g, '\\$')}$`));
  const builderScope = scopes.acquire(builder);
  const statements = builder.body.body;
  const returned = statements.at(-1);
  if (returned?.type !== 'ReturnStatement' || returned.argument?.type !== 'ObjectExpression') {
    fail(`${builder.id.name} does not end by returning an object`);
  }
  const edits = [];
  const lazy = new Map(); // name -> declaration statement
  for (const statement of statements.slice(0, -1)) {
    const [declarator] = statement.declarations ?? [];
    if (
      statement.type !== 'VariableDeclaration' ||
      statement.kind !== 'const' ||
      statement.declarations.length !== 1 ||
      declarator.id.type !== 'Identifier' ||
      !/Schema(\$\d+)?$/.test(declarator.id.name)
    ) {
      fail(`${builder.id.name} holds a statement other than \`const <Name>Schema = ...;\``);
    }
    lazy.set(declarator.id.name, { statement, expression: declarator.init });
  }
  if (lazy.size < 120) fail(`${builder.id.name} builds ${lazy.size} schemas, fewer than 120`);
  if (source.includes('ownedOnRead$agenttool'))
    fail('the chunk already names ownedOnRead$agenttool');
  if ([...lazy.keys()].some((name) => source.includes(`${name}$era`))) {
    fail(`the chunk already names a ${builder.id.name} schema's $eraLazy or $eraBuilt`);
  }
  const shorthand = new Set();
  const constructed = new Set();
  walk(builder, (node) => {
    if (node.type === 'Property' && node.shorthand) shorthand.add(node.value.range[0]);
    if (node.type === 'NewExpression') constructed.add(node.callee.range[0]);
  });
  // Every read of a schema's name in the builder calls its function.
  const reads = [];
  for (const variable of builderScope.variables) {
    if (!lazy.has(variable.name)) continue;
    for (const reference of variable.references) {
      if (reference.init === true) continue;
      if (reference.isWrite()) fail(`${variable.name} is assigned in ${builder.id.name}`);
      const [start, end] = reference.identifier.range;
      const read = constructed.has(start)
        ? `(${variable.name}$eraLazy())`
        : `${variable.name}$eraLazy()`;
      reads.push({
        start,
        end,
        text: shorthand.has(start) ? `${variable.name}: ${read}` : read,
      });
    }
  }
  // A moved expression runs late, or never: it may write nothing declared outside it.
  const within = (scope) => [scope, ...scope.childScopes.flatMap(within)];
  for (const scope of within(builderScope)) {
    for (const reference of scope.references) {
      const start = reference.identifier.range[0];
      const entry = [...lazy.values()].find(
        ({ expression }) => start >= expression.range[0] && start < expression.range[1],
      );
      const declared = reference.resolved?.defs[0]?.node.range;
      const outside =
        declared === undefined ||
        declared[0] < entry?.expression.range[0] ||
        declared[1] > entry?.expression.range[1];
      if (entry !== undefined && reference.isWrite() && outside) {
        fail(
          `a schema's expression in ${builder.id.name} assigns ${reference.identifier.name}, which would then happen late`,
        );
      }
    }
  }
  const withReads = (from, to) =>
    edited(
      source.slice(from, to),
      reads
        .filter((read) => read.start >= from && read.end <= to)
        .map((read) => ({ ...read, start: read.start - from, end: read.end - from })),
    );
  for (const [name, { statement, expression }] of lazy) {
    edits.push({
      start: statement.range[0],
      end: statement.range[1],
      text: `var ${name}$eraBuilt;\n\tfunction ${name}$eraLazy() {\n\t\treturn ${name}$eraBuilt ??= ${withReads(expression.range[0], expression.range[1])};\n\t}`,
    });
  }
  edits.push({
    start: returned.argument.range[0],
    end: returned.argument.range[1],
    text: ownedOnRead(returned.argument, withReads, fail),
  });
  // The maps of the era's requests, notifications and results: read through getters too.
  const maps = functionNamed(/^registryMaps$/);
  let mapsObject;
  walk(maps, (node) => {
    if (
      node.type === 'AssignmentExpression' &&
      node.right.type === 'ObjectExpression' &&
      node.left.type === 'Identifier'
    ) {
      mapsObject ??= node.right;
    }
  });
  if (mapsObject === undefined) fail('registryMaps() assigns no object');
  // `const s = buildSchemas2025();`, and maps whose every value is `s.<Name>`.
  const setName = maps.body.body
    .flatMap((statement) =>
      statement.type === 'VariableDeclaration' ? statement.declarations : [],
    )
    .find((declarator) => declarator.init?.callee?.name === 'buildSchemas2025')?.id.name;
  if (setName === undefined) fail('registryMaps() does not read buildSchemas2025()');
  const outer = mapsObject.properties.map((property) => {
    if (
      property.type !== 'Property' ||
      property.value.type !== 'ObjectExpression' ||
      !property.value.properties.every(
        (entry) =>
          entry.type === 'Property' &&
          entry.value.type === 'MemberExpression' &&
          !entry.value.computed &&
          entry.value.object.type === 'Identifier' &&
          entry.value.object.name === setName,
      )
    ) {
      fail(`registryMaps() assigns an object whose values are not maps of ${setName}.<Name>`);
    }
    const key = source.slice(property.key.range[0], property.key.range[1]);
    const plain = (from, to) => source.slice(from, to);
    return `${key}: ${ownedOnRead(property.value, plain, fail)}`;
  });
  edits.push({
    start: mapsObject.range[0],
    end: mapsObject.range[1],
    text: `{\n${outer.join(',\n')}\n}`,
  });
  return edited(source, edits) + `\n${OWNED_ON_READ}`;
}

/** What ownedOnRead's getters call: the value held as the object's own from then on. */
const OWNED_ON_READ = `function ownedOnRead$agenttool(object, key, value) {
\tObject.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });
\treturn value;
}`;

/**
 * The text of `object` (an object literal of plain properties) with each property a
 * getter that computes its value (`text(from, to)` of the value) on first read and then
 * holds it as a property of its own.
 */
function ownedOnRead(object, text, fail) {
  const getters = object.properties.map((property) => {
    if (
      property.type !== 'Property' ||
      property.kind !== 'init' ||
      property.computed ||
      property.method
    ) {
      fail('an object the SDK reads its schemas from has a property that is not `key: value`');
    }
    const key = property.key.type === 'Identifier' ? property.key.name : property.key.value;
    const name = JSON.stringify(String(key));
    const value = property.shorthand
      ? text(property.value.range[0], property.value.range[1]).replace(/^[\w$]+: /, '')
      : text(property.value.range[0], property.value.range[1]);
    return `\tget ${name}() {\n\t\treturn ownedOnRead$agenttool(this, ${name}, ${value});\n\t}`;
  });
  return `{\n${getters.join(',\n')}\n}`;
}

/** The chunk `code` with the schemas of MODULES built on first read (see above). */
function withLazyModuleSchemas(code, fileName) {
  const source = withLazyRegistration(code, fileName);
  const ast = acorn.parse(source, { ecmaVersion: 'latest', sourceType: 'script', ranges: true });
  // A CommonJS file's top level is a function's scope (nodejsScope): its names are resolved.
  const scopes = eslintScope.analyze(ast, {
    ecmaVersion: 2022,
    sourceType: 'script',
    nodejsScope: true,
  });
  const topScope = scopes.globalScope.childScopes[0];
  const topVariables = new Map(topScope.variables.map((variable) => [variable.name, variable]));
  const fail = (what) => {
    throw new Error(`${fileName}: ${what}; look at scripts/lazy-sdk-schemas.js again`);
  };

  const lazy = []; // { name, init, statement, expression, variable }
  const moduleEnds = [];
  MODULES.forEach((pattern, index) => {
    const found = [];
    for (const statement of ast.body) {
      if (statement.type !== 'VariableDeclaration') continue;
      for (const declarator of statement.declarations) {
        const fn =
          declarator.id.type === 'Identifier' && pattern.test(declarator.id.name)
            ? moduleFunction(declarator)
            : undefined;
        if (fn !== undefined) found.push({ init: declarator.id.name, fn, statement });
      }
    }
    if (found.length !== 1) fail(`expected one module named ${pattern} (found ${found.length})`);
    const [{ init, fn, statement }] = found;
    const fnScope = scopes.acquire(fn);
    let count = 0;
    for (const child of fn.body.body) {
      const assignment = child.type === 'ExpressionStatement' ? child.expression : undefined;
      if (
        assignment?.type !== 'AssignmentExpression' ||
        assignment.operator !== '=' ||
        assignment.left.type !== 'Identifier' ||
        !/^[\w$]+Schema(\$\d+)?$/.test(assignment.left.name)
      ) {
        continue;
      }
      const name = assignment.left.name;
      const variable = topVariables.get(name);
      if (variable === undefined)
        fail(`${name} is assigned in ${init} but not declared at the chunk's top`);
      const writes = variable.references.filter((reference) => reference.isWrite());
      if (writes.length !== 1) fail(`${name} is assigned ${writes.length} times`);
      lazy.push({ name, init, statement: child, expression: assignment.right, variable });
      count++;
    }
    if (count < AT_LEAST[index])
      fail(`${init} builds ${count} schemas, fewer than ${AT_LEAST[index]}`);
    // What an expression reads must be the chunk's, or its own: it moves out of the module.
    for (const variable of fnScope.variables) {
      for (const reference of variable.references) {
        const start = reference.identifier.range[0];
        if (
          lazy.some(
            (entry) =>
              entry.init === init &&
              start >= entry.expression.range[0] &&
              start < entry.expression.range[1],
          )
        ) {
          fail(`${variable.name}, read by a schema of ${init}, is local to the module`);
        }
      }
    }
    moduleEnds.push(statement.range[1]);
  });

  // A moved expression runs late, or never: it may write nothing of the chunk's.
  const inLazy = (start) =>
    lazy.some((entry) => start >= entry.expression.range[0] && start < entry.expression.range[1]);
  for (const variable of topScope.variables) {
    for (const reference of variable.references) {
      if (reference.isWrite() && inLazy(reference.identifier.range[0])) {
        fail(`a schema's expression assigns ${variable.name}, which would then happen late`);
      }
    }
  }
  for (const { name } of lazy) {
    if (topVariables.has(`${name}$lazy`) || source.includes(`${name}$lazy`)) {
      fail(`the chunk already names ${name}$lazy`);
    }
  }

  // Shorthand properties (`{ X }`) keep their key: `{ X: X$lazy() }`; `new X(...)` becomes
  // `new (X$lazy())(...)`.
  const shorthand = new Set();
  const constructed = new Set();
  walk(ast, (node) => {
    if (node.type === 'Property' && node.shorthand) shorthand.add(node.value.range[0]);
    if (node.type === 'NewExpression') constructed.add(node.callee.range[0]);
  });
  const replacements = [];
  for (const { name, variable } of lazy) {
    for (const reference of variable.references) {
      if (reference.isWrite()) continue;
      const [start, end] = reference.identifier.range;
      const call = constructed.has(start) ? `(${name}$lazy())` : `${name}$lazy()`;
      replacements.push({ start, end, text: shorthand.has(start) ? `${name}: ${call}` : call });
    }
  }
  replacements.sort((a, b) => a.start - b.start);
  const rewritten = (from, to) => {
    let text = '';
    let at = from;
    for (const { start, end, text: replacement } of replacements) {
      if (start < from || end > to) continue;
      text += source.slice(at, start) + replacement;
      at = end;
    }
    return text + source.slice(at, to);
  };

  // The schemas' functions go after their module's declaration; their statements go.
  const edits = lazy.map(({ statement }) => ({
    start: statement.range[0],
    end: statement.range[1],
    text: '',
  }));
  for (const end of new Set(moduleEnds)) {
    const functions = lazy
      .filter((entry) => moduleEnds[MODULES.findIndex((p) => p.test(entry.init))] === end)
      .map(
        ({ name, init, expression }) =>
          `function ${name}$lazy() {\n\tif (${name} === undefined) {\n\t\t${init}();\n\t\t${name} ??= ${rewritten(expression.range[0], expression.range[1])};\n\t}\n\treturn ${name};\n}`,
      );
    edits.push({ start: end, end, text: `\n${functions.join('\n')}` });
  }
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const { start, end, text } of edits) {
    out += rewritten(at, start) + text;
    at = end;
  }
  return out + rewritten(at, source.length);
}

module.exports = { withLazySdkSchemas };
