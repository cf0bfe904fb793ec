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
// of the two modules (and three values the SDK's core module derives from 19 of them, see
// MODULES) becomes a function at the chunk's top, `<Name>Schema$lazy()`, that
// runs the module (once, as before: the rest of its statements, which build no schema)
// and then the expression the first time it is called, and every read of the variable in
// the chunk calls it (found with a scope analysis: a local of the same name is another
// variable). A schema is then built when first read, after the module's other statements
// have run, as the SDK's own statements read them; the value is the same object ever after.
// The registration reads them through getters (REGISTRATION, below). Each era's set, which
// the SDK builds whole on the era's first request, is made lazy the same way inside its
// builder (withLazyEraSchemas, below). Anything that differs from these shapes stops
// the build, with what differed: the SDK must be looked at again.
'use strict';
const acorn = require('acorn');
const eslintScope = require('eslint-scope');
const { replaceEachOnce } = require('./replace-once');

/**
 * The modules whose values are made lazy (`module`: their `__esmMin` functions' names), the
 * names of those values (`names`), and how many each must hold: at least `atLeast` (fewer
 * means the SDK moved them), or exactly as many as `exactly` lists. The types module and
 * OAuth's build the schemas; the SDK's core module derives, as it loads, the keys an
 * elicitation form may hold from 19 of them (read only when a server elicits input with a
 * schema of its own, `normalizeElicitInputParams`).
 */
const MODULES = [
  { module: /^init_schemas_[\w$]+$/, names: /^[\w$]+Schema(\$\d+)?$/, atLeast: 150 },
  { module: /^init_auth_[\w$]+$/, names: /^[\w$]+Schema(\$\d+)?$/, atLeast: 10 },
  {
    module: /^init_src_[\w$]+$/,
    names: /^(ROOT_KEYS|PROPERTY_KEYS_BY_TYPE|SUPPORTED_STRING_FORMATS)$/,
    exactly: ['ROOT_KEYS', 'PROPERTY_KEYS_BY_TYPE', 'SUPPORTED_STRING_FORMATS'],
  },
];

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

/** What stops the build for `fileName`, saying what differed from the shape expected. */
function failing(fileName) {
  return (what) => {
    throw new Error(`${fileName}: ${what}; look at scripts/lazy-sdk-schemas.js again`);
  };
}

/**
 * The text of `source` from `from` to `to` with the `reads` (edits: `{ start, end, text }`)
 * that lie within it made.
 */
function rewrittenBetween(source, reads, from, to) {
  return edited(
    source.slice(from, to),
    reads
      .filter((read) => read.start >= from && read.end <= to)
      .map((read) => ({ ...read, start: read.start - from, end: read.end - from })),
  );
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
 * Each era's schemas, built on first read. The first request of an era has the SDK build
 * the era's whole set (`buildSchemas2025()`, some 140 schemas: 6-9 ms; the 2026-07-28 set
 * likewise) to look up the one it needs, in maps that read all of them. Here each `const`
 * of the builder becomes a function of the builder's own that builds it once
 * (`<name>$eraLazy`, its value in `<name>$eraBuilt`), its reads call it, and the object
 * the builder returns, the builder's own maps (2026-07-28) and the maps its consumers make
 * read through getters that build a value once and then hold it as their own.
 */
const ERAS = [
  {
    builtBy: 'buildSchemas2025',
    atLeast: 120,
    // The 2025 builder holds only its schemas.
    only: /Schema(\$\d+)?$/,
    functions: false,
    maps: /(?!)/,
    readers: [/^registryMaps$/],
  },
  {
    builtBy: 'buildSchemas2026',
    atLeast: 100,
    // The 2026-07-28 builder also holds shapes, helpers and maps of its schemas.
    only: /./,
    functions: true,
    maps: /Schemas(2026)?$/,
    readers: [/^getWireResultSchemas$/],
  },
];

function withLazyEraSchemas(source, fileName) {
  const { ast, scopes } = analysed(source);
  const fail = failing(fileName);
  if (source.includes('ownedOnRead$agenttool')) {
    fail('the chunk already names ownedOnRead$agenttool');
  }
  const functionNamed = (pattern) => {
    const found = ast.body.filter(
      (node) => node.type === 'FunctionDeclaration' && pattern.test(node.id.name),
    );
    if (found.length !== 1) fail(`expected one function named ${pattern} (found ${found.length})`);
    return found[0];
  };
  const edits = ERAS.flatMap((era) => eraEdits(era, { source, scopes, fail, functionNamed }));
  return edited(source, edits) + `\n${OWNED_ON_READ}`;
}

/** The edits that make one era's builder and its readers lazy (see ERAS). */
function eraEdits(era, { source, scopes, fail, functionNamed }) {
  // `function buildSchemas2025() { return memo ??= build(); }`: the builder's name.
  const memoized = functionNamed(new RegExp(`^${era.builtBy}$`)).body.body;
  const call = memoized.length === 1 ? memoized[0].argument?.right : undefined;
  if (call?.type !== 'CallExpression' || call.callee.type !== 'Identifier') {
    fail(`${era.builtBy}() is not \`return memo ??= build();\``);
  }
  const builder = functionNamed(new RegExp(`^${call.callee.name.replace(/\$/g, '\\$')}$`));
  const builderScope = scopes.acquire(builder);
  const statements = builder.body.body;
  const returned = statements.at(-1);
  if (returned?.type !== 'ReturnStatement' || returned.argument?.type !== 'ObjectExpression') {
    fail(`${builder.id.name} does not end by returning an object`);
  }
  const edits = [];
  const lazy = new Map(); // name -> { statement, expression }
  const helpers = []; // the builder's function declarations: their reads rewritten
  for (const statement of statements.slice(0, -1)) {
    if (statement.type === 'FunctionDeclaration' && era.functions) {
      helpers.push(statement);
      continue;
    }
    const [declarator] = statement.declarations ?? [];
    if (
      statement.type !== 'VariableDeclaration' ||
      statement.kind !== 'const' ||
      statement.declarations.length !== 1 ||
      declarator.id.type !== 'Identifier' ||
      !era.only.test(declarator.id.name)
    ) {
      fail(
        era.functions
          ? `${builder.id.name} holds a statement other than \`const <name> = ...;\` or a function`
          : `${builder.id.name} holds a statement other than \`const <Name>Schema = ...;\``,
      );
    }
    lazy.set(declarator.id.name, { statement, expression: declarator.init });
  }
  const schemas = [...lazy.keys()].filter((name) => /Schema(\$\d+)?$/.test(name)).length;
  if (schemas < era.atLeast) {
    fail(`${builder.id.name} builds ${schemas} schemas, fewer than ${era.atLeast}`);
  }
  if ([...lazy.keys()].some((name) => source.includes(`${name}$era`))) {
    fail(`the chunk already names a ${builder.id.name} schema's $eraLazy or $eraBuilt`);
  }
  const asRead = readsIn(builder);
  // Every read of a lazy name in the builder calls its function.
  const reads = [];
  for (const variable of builderScope.variables) {
    if (!lazy.has(variable.name)) continue;
    for (const reference of variable.references) {
      if (reference.init === true) continue;
      if (reference.isWrite()) fail(`${variable.name} is assigned in ${builder.id.name}`);
      const [start, end] = reference.identifier.range;
      reads.push({ start, end, text: asRead(start, variable.name, `${variable.name}$eraLazy()`) });
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
  const withReads = (from, to) => rewrittenBetween(source, reads, from, to);
  for (const [name, { statement, expression }] of lazy) {
    // A map of the builder's own: its entries built on first read too.
    const value =
      era.maps.test(name) && expression.type === 'ObjectExpression'
        ? ownedOnRead(expression, withReads, fail)
        : withReads(expression.range[0], expression.range[1]);
    edits.push({
      start: statement.range[0],
      end: statement.range[1],
      text: `var ${name}$eraBuilt;\n\tfunction ${name}$eraLazy() {\n\t\treturn ${name}$eraBuilt ??= ${value};\n\t}`,
    });
  }
  edits.push({
    start: returned.argument.range[0],
    end: returned.argument.range[1],
    text: ownedOnRead(returned.argument, withReads, fail),
  });
  for (const helper of helpers) {
    edits.push({
      start: helper.range[0],
      end: helper.range[1],
      text: withReads(helper.range[0], helper.range[1]),
    });
  }
  // Every read was written into some edit (rolldown drops a function no one calls, so a
  // read left as it was would name a variable that is gone).
  for (const read of reads) {
    if (!edits.some(({ start, end }) => read.start >= start && read.end <= end)) {
      fail(
        `a read of ${source.slice(read.start, read.end)} in ${builder.id.name} is outside what is rewritten`,
      );
    }
  }
  // The maps its readers make of the set (`const s = buildSchemas...(); x = { k: s.Name }`,
  // or maps of such maps): read through getters too.
  for (const pattern of era.readers) {
    const reader = functionNamed(pattern);
    const setName = reader.body.body
      .flatMap((statement) =>
        statement.type === 'VariableDeclaration' ? statement.declarations : [],
      )
      .find((declarator) => declarator.init?.callee?.name === era.builtBy)?.id.name;
    if (setName === undefined) fail(`${reader.id.name}() does not read ${era.builtBy}()`);
    let assigned;
    walk(reader, (node) => {
      if (
        node.type === 'AssignmentExpression' &&
        node.right.type === 'ObjectExpression' &&
        node.left.type === 'Identifier'
      ) {
        assigned ??= node.right;
      }
    });
    if (assigned === undefined) fail(`${reader.id.name}() assigns no object`);
    const readsOfSet = (object) =>
      object.properties.every(
        (entry) =>
          entry.type === 'Property' &&
          entry.value.type === 'MemberExpression' &&
          !entry.value.computed &&
          entry.value.object.type === 'Identifier' &&
          entry.value.object.name === setName,
      );
    const plain = (from, to) => source.slice(from, to);
    let text;
    if (readsOfSet(assigned)) {
      text = ownedOnRead(assigned, plain, fail);
    } else {
      const outer = assigned.properties.map((property) => {
        if (
          property.type !== 'Property' ||
          property.value.type !== 'ObjectExpression' ||
          !readsOfSet(property.value)
        ) {
          fail(
            `${reader.id.name}() assigns an object whose values are not maps of ${setName}.<Name>`,
          );
        }
        const key = source.slice(property.key.range[0], property.key.range[1]);
        return `${key}: ${ownedOnRead(property.value, plain, fail)}`;
      });
      text = `{\n${outer.join(',\n')}\n}`;
    }
    edits.push({ start: assigned.range[0], end: assigned.range[1], text });
  }
  return edits;
}

/**
 * How a read of `name` at a position in `node` is written as `call`: a shorthand property
 * (`{ X }`) keeps its key (`{ X: call }`), and `new X(...)` constructs the value
 * (`new (call)(...)`).
 */
function readsIn(node) {
  const shorthand = new Set();
  const constructed = new Set();
  walk(node, (child) => {
    if (child.type === 'Property' && child.shorthand) shorthand.add(child.value.range[0]);
    if (child.type === 'NewExpression') constructed.add(child.callee.range[0]);
  });
  return (start, name, call) => {
    const read = constructed.has(start) ? `(${call})` : call;
    return shorthand.has(start) ? `${name}: ${read}` : read;
  };
}

/** Whether `node` reads `this` or `arguments` of the code around it. */
function usesThisOrArguments(node) {
  if (Array.isArray(node)) return node.some(usesThisOrArguments);
  if (node === null || typeof node !== 'object' || typeof node.type !== 'string') return false;
  if (node.type === 'ThisExpression') return true;
  if (node.type === 'Identifier') return node.name === 'arguments';
  if (
    /^(FunctionExpression|FunctionDeclaration|ClassExpression|ClassDeclaration)$/.test(node.type)
  ) {
    return false;
  }
  // A key (`{ arguments: ... }`, `x.arguments`) names a property, not the variable.
  if (node.type === 'Property' && !node.computed) return usesThisOrArguments(node.value);
  if (node.type === 'MemberExpression' && !node.computed) return usesThisOrArguments(node.object);
  return Object.entries(node).some(
    ([key, value]) =>
      key !== 'loc' && value !== null && typeof value === 'object' && usesThisOrArguments(value),
  );
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
    // Moved into a getter, `this` and `arguments` would be the getter's (but for those of
    // a function or class of the value's own).
    if (usesThisOrArguments(property.value)) {
      fail(`a value the SDK reads its schemas from uses \`this\` or \`arguments\`: ${name}`);
    }
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
  const { ast, scopes, topScope } = analysed(source);
  const topVariables = new Map(topScope.variables.map((variable) => [variable.name, variable]));
  const fail = failing(fileName);

  const lazy = []; // { name, init, statement, expression, variable, moduleEnd }
  for (const { module: pattern, names, atLeast, exactly } of MODULES) {
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
        !names.test(assignment.left.name)
      ) {
        continue;
      }
      const name = assignment.left.name;
      const variable = topVariables.get(name);
      if (variable === undefined)
        fail(`${name} is assigned in ${init} but not declared at the chunk's top`);
      const writes = variable.references.filter((reference) => reference.isWrite());
      if (writes.length !== 1) fail(`${name} is assigned ${writes.length} times`);
      lazy.push({
        name,
        init,
        statement: child,
        expression: assignment.right,
        variable,
        moduleEnd: statement.range[1],
      });
      count++;
    }
    if (exactly !== undefined) {
      const made = lazy.filter((entry) => entry.init === init).map((entry) => entry.name);
      if (made.join() !== exactly.join()) {
        fail(
          `${init} assigns ${made.join(', ') || 'none'} where ${exactly.join(', ')} were expected`,
        );
      }
    } else if (count < atLeast) fail(`${init} builds ${count} schemas, fewer than ${atLeast}`);
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
  }

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

  const asRead = readsIn(ast);
  const replacements = [];
  for (const { name, variable } of lazy) {
    for (const reference of variable.references) {
      if (reference.isWrite()) continue;
      const [start, end] = reference.identifier.range;
      replacements.push({ start, end, text: asRead(start, name, `${name}$lazy()`) });
    }
  }
  // The schemas' functions go after their module's declaration; their statements go; the
  // reads elsewhere become calls.
  const edits = lazy.map(({ statement }) => ({
    start: statement.range[0],
    end: statement.range[1],
    text: '',
  }));
  for (const end of new Set(lazy.map((entry) => entry.moduleEnd))) {
    const functions = lazy
      .filter((entry) => entry.moduleEnd === end)
      .map(
        ({ name, init, expression }) =>
          `function ${name}$lazy() {\n\tif (${name} === undefined) {\n\t\t${init}();\n\t\t${name} ??= ${rewrittenBetween(source, replacements, expression.range[0], expression.range[1])};\n\t}\n\treturn ${name};\n}`,
      );
    edits.push({ start: end, end, text: `\n${functions.join('\n')}` });
  }
  const removed = ({ start }) => edits.some((edit) => start >= edit.start && start < edit.end);
  return edited(source, [...edits, ...replacements.filter((read) => !removed(read))]);
}

module.exports = { withLazySdkSchemas };
