// scripts/lazy-sdk-schemas.js, which has the bundle build the MCP SDK's type schemas on
// first read instead of as it loads: on a chunk of the SDK's shape (rolldown's module
// functions, the SDK's registration of its types by name), each schema is built when first
// read and is the same object ever after; a local of the same name, a shorthand property
// and a schema that refers to itself keep their meaning; a chunk of another shape stops
// the build with what differed. test/package/lazy-start.test.ts reads the built bundle.
import * as vm from 'node:vm';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a script of the build, in CommonJS
const { withLazySdkSchemas } = require('../../scripts/lazy-sdk-schemas.js') as {
  withLazySdkSchemas(code: string, fileName: string): string;
};

interface Schema {
  readonly name: string;
  readonly parts: readonly unknown[];
  safeParse(value: unknown): { success: boolean };
}

interface Chunk {
  readonly built: string[];
  readonly requestSchema: (method: string) => Schema | undefined;
  readonly resultSchema: (method: string) => Schema | undefined;
  readonly era: () => Record<string, Schema>;
  readonly modernRequest: (method: string) => Schema | undefined;
  readonly modernResult: (method: string) => Schema | undefined;
  readonly read: Record<string, () => Schema>;
  readonly specTypeSchemas: () => Record<string, Schema>;
  readonly isSpecType: () => Record<string, (value: unknown) => boolean>;
  readonly shadow: (value: unknown) => unknown;
  readonly shorthand: () => Record<string, Schema>;
  readonly constructed: () => { value: string };
  readonly formKeys: () => { name: string; from: Schema; ready: boolean }[];
}

const TYPES = Array.from({ length: 150 }, (_, i) => `T${i}`);
const ERA = Array.from({ length: 120 }, (_, i) => `P${i}`);
const MODERN = Array.from({ length: 100 }, (_, i) => `M${i}`);
const AUTH = Array.from({ length: 10 }, (_, i) => `A${i}`);

/**
 * A chunk as rolldown writes the SDK's: `var` names at the top, module functions that
 * assign them, the SDK's `register` and its loops over the types and the OAuth schemas.
 */
function sdkLikeChunk(): string {
  const names = [...TYPES, ...AUTH, 'Self', 'Shadowed', 'Short', 'Constructed'].map(
    (name) => `${name}Schema`,
  );
  return `'use strict';
const built = [];
const make = (name, ...parts) => {
	built.push(name);
	return { name, parts, safeParse: (value) => ({ success: value === name }) };
};
var require_runtime = { __esmMin: (fn, res) => () => (fn && (res = fn(fn = 0)), res) };
var PREFIX, ${names.join(', ')}, _specTypeSchemas, _isSpecType, authSchemas, schemas_exports, SPEC_SCHEMA_KEYS;
var init_schemas_Abc123 = require_runtime.__esmMin((() => {
	PREFIX = "type:";
	T0Schema = make("T0", PREFIX);
${TYPES.slice(1)
  .map((name, i) => `\t${name}Schema = make("${name}", T${i}Schema);`)
  .join('\n')}
	SelfSchema = make("Self", () => SelfSchema);
	ShadowedSchema = make("Shadowed");
	ShortSchema = make("Short");
	ConstructedSchema = class { constructor(value) { built.push("Constructed"); this.value = value; } };
}));
var init_auth_Def456 = require_runtime.__esmMin((() => {
	init_schemas_Abc123();
${AUTH.map((name) => `\t${name}Schema = make("${name}", T0Schema);`).join('\n')}
}));
function register(key, schema) {
	const name = key.slice(0, -6);
	_specTypeSchemas[name] = schema;
	_isSpecType[name] = (v) => schema.safeParse(v).success;
}
var init_protocol = require_runtime.__esmMin((() => {
	init_auth_Def456();
	schemas_exports = {
${TYPES.map((name) => `\t\tget ${name}Schema() { return ${name}Schema; }`).join(',\n')}
	};
	SPEC_SCHEMA_KEYS = ${JSON.stringify(TYPES.map((name) => `${name}Schema`))};
	authSchemas = {
${AUTH.map((name) => `\t\t${name}Schema`).join(',\n')}
	};
	_specTypeSchemas = {};
	_isSpecType = {};
	for (const key of SPEC_SCHEMA_KEYS) register(key, schemas_exports[key]);
	for (const [key, schema] of Object.entries(authSchemas)) register(key, schema);
	Object.freeze(_specTypeSchemas);
	Object.freeze(_isSpecType);
}));
var ROOT_KEYS, PROPERTY_KEYS_BY_TYPE, SUPPORTED_STRING_FORMATS, CORE_READY;
function derive(name, schema) {
	built.push(name);
	return { name, from: schema, ready: CORE_READY };
}
var init_src_Ghi789 = require_runtime.__esmMin((() => {
	init_protocol();
	ROOT_KEYS = derive("ROOT_KEYS", T3Schema);
	PROPERTY_KEYS_BY_TYPE = { string: derive("PROPERTY_KEYS_BY_TYPE", T4Schema) };
	SUPPORTED_STRING_FORMATS = derive("SUPPORTED_STRING_FORMATS", T5Schema);
	CORE_READY = true;
}));
function formKeys() {
	return [ROOT_KEYS, PROPERTY_KEYS_BY_TYPE.string, SUPPORTED_STRING_FORMATS];
}
function shadow(ShadowedSchema) {
	return ShadowedSchema;
}
function shorthand() {
	return { ShortSchema };
}
function constructed() {
	return new ConstructedSchema("made");
}
var memo$1, maps$1;
function build$1() {
	const P0Schema$1 = make("P0", T0Schema);
${ERA.slice(1)
  .map((name, i) => `\tconst ${name}Schema$1 = make("${name}", P${i}Schema$1);`)
  .join('\n')}
	const RecSchema$1 = make("Rec", () => RecSchema$1);
	const T5Schema = make("T5 of the era");
	const ShortEraSchema = make("ShortEra", T5Schema);
	return {
${ERA.map((name) => `\t\t${name}Schema: ${name}Schema$1,`).join('\n')}
		RecSchema: RecSchema$1,
		ShortEraSchema,
		InlineSchema: make("Inline", P1Schema$1)
	};
}
function buildSchemas2025() {
	return memo$1 ??= build$1();
}
function registryMaps() {
	if (maps$1) return maps$1;
	const s = buildSchemas2025();
	maps$1 = {
		requestSchemas: {
			ping: s.P0Schema,
			"tools/list": s.P1Schema
		},
		resultSchemas: { "tools/list": s.InlineSchema }
	};
	return maps$1;
}
var memo, wireResultSchemasMemo;
function build() {
${MODERN.map((name, i) => `\tconst ${name}Schema$1 = make("${name}"${i === 0 ? '' : `, M${i - 1}Schema$1`});`).join('\n')}
	const paramsShape = { cursor: M0Schema$1 };
	const MetaSchema = make("Meta");
	function dispatchRequest(method, shape) {
		return make("dispatch " + method, MetaSchema, shape);
	}
	const dispatchRequestSchemas = {
		"tools/list": dispatchRequest("tools/list", paramsShape),
		"tools/call": dispatchRequest("tools/call", { name: M1Schema$1 })
	};
	return {
${MODERN.map((name) => `\t\t${name}Schema: ${name}Schema$1,`).join('\n')}
		dispatchRequestSchemas
	};
}
function buildSchemas2026() {
	return memo ??= build();
}
function getWireResultSchemas() {
	if (wireResultSchemasMemo) return wireResultSchemasMemo;
	const s = buildSchemas2026();
	wireResultSchemasMemo = {
		"tools/list": s.M2Schema,
		"tools/call": s.M3Schema
	};
	return wireResultSchemasMemo;
}
init_src_Ghi789();
module.exports = {
	modernRequest: (method) => buildSchemas2026().dispatchRequestSchemas[method],
	modernResult: (method) => getWireResultSchemas()[method],
	requestSchema: (method) => registryMaps().requestSchemas[method],
	resultSchema: (method) => registryMaps().resultSchemas[method],
	era: () => buildSchemas2025(),
	built,
	read: { T0: () => T0Schema, T1: () => T1Schema, T149: () => T149Schema, Self: () => SelfSchema, A0: () => A0Schema },
	specTypeSchemas: () => _specTypeSchemas,
	isSpecType: () => _isSpecType,
	shadow,
	shorthand,
	constructed,
	formKeys,
};
`;
}

/** Runs a chunk's text as CommonJS and returns its exports. */
function run(code: string): Chunk {
  const module = { exports: {} as Chunk };
  const wrapper = new vm.Script(
    `(function (module, exports) {\n${code}\n})`,
  ).runInThisContext() as (module: { exports: Chunk }, exports: Chunk) => void;
  wrapper(module, module.exports);
  return module.exports;
}

test('the chunk as it was builds every schema as it loads; transformed, none until read', () => {
  // The types, OAuth's, three more, and the core module's three values derived from them.
  expect(run(sdkLikeChunk()).built).toHaveLength(TYPES.length + AUTH.length + 3 + 3);
  const chunk = run(withLazySdkSchemas(sdkLikeChunk(), 'chunk.js'));
  expect(chunk.built).toEqual([]);
  expect(Object.keys(chunk.specTypeSchemas())).toEqual([...TYPES, ...AUTH]);
  expect(Object.isFrozen(chunk.specTypeSchemas())).toBe(true);
  expect(chunk.built).toEqual([]);
});

test('a schema is built when first read, after what it reads, and is the same object after', () => {
  const chunk = run(withLazySdkSchemas(sdkLikeChunk(), 'chunk.js'));
  const t1 = chunk.read.T1!();
  expect(chunk.built).toEqual(['T0', 'T1']);
  expect(t1.parts[0]).toBe(chunk.read.T0!());
  // The module's own statements ran first: T0 read the module's constant.
  expect(chunk.read.T0!().parts).toEqual(['type:']);
  expect(chunk.read.T1!()).toBe(t1);
  expect(chunk.specTypeSchemas().T1).toBe(t1);
  expect(chunk.built).toEqual(['T0', 'T1']);
});

test("the core module's values derived from schemas: derived when first read, after the module ran", () => {
  const chunk = run(withLazySdkSchemas(sdkLikeChunk(), 'chunk.js'));
  expect(chunk.built).toEqual([]);
  const [root, byType, formats] = chunk.formKeys();
  expect(chunk.built).toEqual([
    'T0',
    'T1',
    'T2',
    'T3',
    'ROOT_KEYS',
    'T4',
    'PROPERTY_KEYS_BY_TYPE',
    'T5',
    'SUPPORTED_STRING_FORMATS',
  ]);
  expect(root!.from).toBe(chunk.specTypeSchemas().T3);
  // Derived after the module's own statements, the later ones included, had run.
  expect([root!.ready, byType!.ready, formats!.ready]).toEqual([true, true, true]);
  expect(chunk.formKeys()).toEqual([root, byType, formats]);
  expect(chunk.formKeys()[0]).toBe(root);
  expect(chunk.built).toHaveLength(9);
});

test('the registration reads through getters: a type found by name, checked by name', () => {
  const chunk = run(withLazySdkSchemas(sdkLikeChunk(), 'chunk.js'));
  expect(chunk.specTypeSchemas().A3!.name).toBe('A3');
  expect(chunk.isSpecType().A4!('A4')).toBe(true);
  expect(chunk.isSpecType().T2!('no')).toBe(false);
  expect(chunk.built).toEqual(['T0', 'A3', 'A4', 'T1', 'T2']);
  expect(chunk.read.A0!().parts[0]).toBe(chunk.read.T0!());
});

test('a local of the same name, a shorthand property and a schema that refers to itself keep their meaning', () => {
  const chunk = run(withLazySdkSchemas(sdkLikeChunk(), 'chunk.js'));
  expect(chunk.shadow('a local')).toBe('a local');
  expect(chunk.built).toEqual([]);
  expect(chunk.shorthand()).toEqual({ ShortSchema: expect.objectContaining({ name: 'Short' }) });
  const self = chunk.read.Self!();
  expect((self.parts[0] as () => Schema)()).toBe(self);
  // `new X(...)` constructs the value, not the function that builds it.
  expect(chunk.constructed()).toEqual({ value: 'made' });
});

test("the era's builder and its maps: a request's schema built when looked up, the rest not", () => {
  const chunk = run(withLazySdkSchemas(sdkLikeChunk(), 'chunk.js'));
  const ping = chunk.requestSchema('ping');
  // P0 reads T0, a schema of the types module: built first, once.
  expect(chunk.built).toEqual(['T0', 'P0']);
  expect(ping!.parts[0]).toBe(chunk.read.T0!());
  expect(chunk.requestSchema('ping')).toBe(ping);
  expect(chunk.era().P0Schema).toBe(ping);
  expect(chunk.requestSchema('resources/read')).toBeUndefined();
  expect(chunk.resultSchema('tools/list')!.name).toBe('Inline');
  expect(chunk.built).toEqual(['T0', 'P0', 'P1', 'Inline']);
  expect(Object.keys(chunk.era())).toEqual([
    ...ERA.map((name) => `${name}Schema`),
    'RecSchema',
    'ShortEraSchema',
    'InlineSchema',
  ]);
  expect(chunk.built).toHaveLength(4);
  // Once read, a value is the object's own: no getter left.
  expect(Object.getOwnPropertyDescriptor(chunk.era(), 'P0Schema')).toEqual({
    value: ping,
    enumerable: true,
    configurable: true,
    writable: true,
  });
  // A builder's local named as a schema of the types module is the builder's.
  expect(chunk.era().ShortEraSchema!.parts[0]).toEqual(
    expect.objectContaining({ name: 'T5 of the era' }),
  );
  expect(chunk.built).toEqual(['T0', 'P0', 'P1', 'Inline', 'T5 of the era', 'ShortEra']);
  const rec = chunk.era().RecSchema!;
  expect((rec.parts[0] as () => Schema)()).toBe(rec);
  expect(chunk.era().P119Schema!.parts[0]).toBe(chunk.era().P118Schema);
});

test('the 2026-07-28 builder: its shapes, helpers and maps of its own read on demand too', () => {
  const chunk = run(withLazySdkSchemas(sdkLikeChunk(), 'chunk.js'));
  const list = chunk.modernRequest('tools/list')!;
  // The map's one entry: the shape's schema, the helper's, then the entry itself.
  expect(chunk.built).toEqual(['M0', 'Meta', 'dispatch tools/list']);
  expect(list.parts).toEqual([
    expect.objectContaining({ name: 'Meta' }),
    { cursor: expect.objectContaining({ name: 'M0' }) },
  ]);
  expect(chunk.modernRequest('tools/list')).toBe(list);
  expect(chunk.modernResult('tools/call')!.name).toBe('M3');
  expect(chunk.built).toEqual(['M0', 'Meta', 'dispatch tools/list', 'M1', 'M2', 'M3']);
  expect(chunk.modernRequest('tools/call')!.parts[1]).toEqual({
    name: chunk.modernResult('tools/list')!.parts[0],
  });
});

describe('a chunk of another shape stops the build, saying what differed', () => {
  test.each<[string, (code: string) => string, RegExp]>([
    [
      'the registration written otherwise',
      (code) =>
        code.replace('_specTypeSchemas[name] = schema;', '_specTypeSchemas[name] ??= schema;'),
      /chunk\.js: expected the SDK's registration of its types to contain once \(found 0\)/,
    ],
    [
      'no module of the OAuth schemas',
      (code) => code.replaceAll('init_auth_Def456', 'init_oauth_Def456'),
      /chunk\.js: expected one module named \/\^init_auth_\[\\w\$\]\+\$\/ \(found 0\)/,
    ],
    [
      'fewer schemas than the SDK holds',
      (code) => code.replace(/^\tT14[5-9]Schema = .*\n/gm, ''),
      /init_schemas_Abc123 builds 149 schemas, fewer than 150/,
    ],
    [
      "a schema's expression that assigns a variable of the chunk (it would happen late)",
      (code) =>
        code.replace(
          '\tShortSchema = make("Short");',
          '\tShortSchema = (PREFIX = "late", make("Short"));',
        ),
      /a schema's expression assigns PREFIX, which would then happen late/,
    ],
    [
      'a chunk that already names a function the transform adds',
      (code) => code.replace('function shadow(', 'function T0Schema$lazy() {}\nfunction shadow('),
      /the chunk already names T0Schema\$lazy/,
    ],
    [
      'a builder of the era that does more than build its schemas',
      (code) =>
        code.replace('\tconst RecSchema$1 =', '\tconsole.log("built");\n\tconst RecSchema$1 ='),
      /build\$1 holds a statement other than `const <Name>Schema = \.\.\.;`/,
    ],
    [
      "a schema of the era's builder that assigns a variable outside it (it would happen late)",
      (code) =>
        code.replace(
          'make("Rec", () => RecSchema$1)',
          '(PREFIX = "late", make("Rec", () => RecSchema$1))',
        ),
      /a schema's expression in build\$1 assigns PREFIX, which would then happen late/,
    ],
    [
      'registry maps that read other than the era set',
      (code) => code.replace('ping: s.P0Schema,', 'ping: P0Schema(),'),
      /registryMaps\(\) assigns an object whose values are not maps of s\.<Name>/,
    ],
    [
      "a value of the era's set that reads `this` (a getter's would be another)",
      (code) =>
        code.replace(
          'InlineSchema: make("Inline", P1Schema$1)',
          'InlineSchema: make("Inline", this)',
        ),
      /a value the SDK reads its schemas from uses `this` or `arguments`: "InlineSchema"/,
    ],
    [
      'no registry maps of the era',
      (code) => code.replaceAll('registryMaps', 'eraMaps'),
      /expected one function named \/\^registryMaps\$\/ \(found 0\)/,
    ],
    [
      'a value the core module no longer derives',
      (code) => code.replace(/^\tSUPPORTED_STRING_FORMATS = .*\n/m, ''),
      /init_src_Ghi789 assigns ROOT_KEYS, PROPERTY_KEYS_BY_TYPE where ROOT_KEYS, PROPERTY_KEYS_BY_TYPE, SUPPORTED_STRING_FORMATS were expected/,
    ],
    [
      'a schema assigned twice',
      (code) =>
        code.replace(
          '\tShortSchema = make("Short");',
          '\tShortSchema = make("Short");\n\tShortSchema = make("Short");',
        ),
      /ShortSchema is assigned 2 times/,
    ],
    [
      'a schema that reads a local of its module (it could not move out of it)',
      (code) =>
        code
          .replace('\tPREFIX = "type:";', '\tconst local = "type:";\n\tPREFIX = local;')
          .replace('make("T0", PREFIX)', 'make("T0", local)'),
      /local, read by a schema of init_schemas_Abc123, is local to the module/,
    ],
  ])('%s', (_name, edit, said) => {
    expect(() => withLazySdkSchemas(edit(sdkLikeChunk()), 'chunk.js')).toThrow(said);
  });
});
