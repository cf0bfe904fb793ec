import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type Constructor,
  DecoratorError,
  definitionHash,
  type JsonObject,
  Param,
  schemaOf,
  Tool,
  toolFromInstance,
} from 'agenttool';

// The golden corpus of the contract: for each fixture of the manifest, a TypeScript
// arguments class expressing the same shape, whose schema must equal the golden file
// byte for byte (pretty-printed with 2-space indentation and a trailing newline).

const fixtures = path.join(__dirname, '../fixtures/contract');

function golden(name: string): string {
  const inSchema = path.join(fixtures, 'schema', `${name}.json`);
  const file = fs.existsSync(inSchema)
    ? inSchema
    : path.join(fixtures, 'schema.reconstructed', `${name}.json`);
  return fs.readFileSync(file, 'utf8');
}

const pretty = (schema: JsonObject): string => JSON.stringify(schema, null, 2) + '\n';

class ReadFileArgs {
  @Param('Absolute path to read') path!: string;
  @Param('Stop after this many bytes', { optional: true, type: 'integer' }) max_bytes?: number;
}

class Nested {
  @Param() name!: string;
  @Param('', { items: 'string' }) Tags!: string[];
}

enum Level {
  Low = 'low',
  Medium = 'medium',
  High = 'high',
}

class Everything {
  @Param() str!: string;
  @Param('an integer', { type: 'integer' }) int!: number;
  @Param('', { type: 'integer' }) uint!: number;
  @Param() float!: number;
  @Param() bool!: boolean;
  @Param('', { enum: Level }) level!: Level;
  @Param('', { type: 'integer', enum: [1, 2, 3], optional: true, nullable: true })
  count?: 1 | 2 | 3 | null;
  @Param() when!: Date;
  // Go's json.RawMessage: any JSON value, kept as decoded.
  @Param('', { type: 'any', optional: true }) raw?: unknown;
  @Param('', { type: 'any', optional: true }) any?: unknown;
  // Go's []byte: a Buffer, base64 on the wire.
  @Param('', { optional: true }) bytes?: Buffer;
  @Param('', { items: Nested }) list!: Nested[];
  @Param('', { items: ['number'], optional: true }) matrix?: number[][];
  @Param() nested!: Nested;
  // Go's *nested: optional and nullable.
  @Param('', { type: () => Nested, optional: true, nullable: true }) pointer?: Nested | null;
  @Param('', { values: 'string', optional: true }) labels?: Record<string, string>;
  // Go's time.Duration is an integer count of nanoseconds; here a number of ms.
  @Param('', { type: 'integer', optional: true }) duration?: number;
  // Not arguments: fields without @Param (Go: unexported and json:"-").
  hidden = 'not a field';
}

// Go's embedded struct promotes its fields in place: in TypeScript, inheritance.
class Embedded extends Nested {
  @Param('', { optional: true }) extra?: string;
}

class Inner {
  @Param() deep!: boolean;
}

class StrictArgs {
  @Param('Search terms') query!: string;
  @Param('Maximum results', { type: 'integer', optional: true, nullable: true })
  limit?: number | null;
  @Param() inner!: Inner;
}

class NoArgs {}

// Go's Schemer: a static jsonSchema() supplies the schema, served verbatim.
class Custom {
  static jsonSchema(): JsonObject {
    return { type: 'object', properties: { x: { type: 'string' } } };
  }
}

// Go's encoding.TextMarshaler is a type that encodes as a string: in TypeScript, a
// branded or template-literal string type, which reflection sees as String.
type TextKey = `key-${string}`;
class TextArgs {
  @Param() key!: TextKey;
}

// Go's shadowing by depth: the outer id wins over the embedded one. In TypeScript the
// subclass's redeclaration replaces the parent's field in place. Go's tie between two
// equally deep untagged fields (Name, dropped) has no counterpart: a class has one parent.
class ShadowBase {
  @Param() Memo!: string;
  @Param('inner id') id!: string;
}
class Shadowed extends ShadowBase {
  @Param('outer wins') override id!: string;
}

// Go's json.Marshaler encodes itself, so its shape is unknown: in TypeScript, a class
// with toJSON(), declared { type: 'any' }. Go's uintptr is an integer.
class SelfEncoding {
  toJSON(): unknown {
    return 'self';
  }
}
class MarshalerArgs {
  @Param('', { type: 'any' }) value!: SelfEncoding;
  @Param('', { type: 'integer', enum: [1, 2] }) word!: number;
}

class StrictNullable {
  @Param('', { enum: ['low', 'high'], optional: true, nullable: true })
  level?: 'low' | 'high' | null;
  @Param('', { type: 'any', optional: true, nullable: true }) raw?: unknown;
  // `Date | null` reflects as Object, so the type is stated.
  @Param('', { type: Date, optional: true, nullable: true }) when?: Date | null;
  @Param('', { items: Nested }) items!: Nested[];
}

// Go's []byte is a string (base64); Go's [N]byte is an array of integers.
class ByteArray {
  @Param() slice!: Uint8Array;
  @Param('', { items: 'integer' }) fixed!: number[];
}

const classes: Record<string, Constructor> = {
  read_file: ReadFileArgs,
  read_file_strict: ReadFileArgs,
  everything: Everything,
  embedded: Embedded,
  strict: StrictArgs,
  no_args: NoArgs,
  no_args_strict: NoArgs,
  custom: Custom,
  text_marshaler: TextArgs,
  // There are no pointers in TypeScript: the same class stands for *readFileArgs.
  pointer_to_struct: ReadFileArgs,
  shadowed: Shadowed,
  json_marshaler: MarshalerArgs,
  strict_nullable: StrictNullable,
  byte_array: ByteArray,
};

interface Fixture {
  name: string;
  strict: boolean;
}

const manifest = JSON.parse(
  fs.readFileSync(path.join(fixtures, 'schema', 'manifest.json'), 'utf8'),
) as { fixtures: Fixture[] };

describe('golden schema corpus', () => {
  it('has a class for every fixture of the manifest, and no other', () => {
    expect(Object.keys(classes).sort()).toEqual(manifest.fixtures.map((f) => f.name).sort());
  });

  it.each(manifest.fixtures.map((f) => [f.name, f] as const))('%s', (name, fixture) => {
    const cls = classes[name]!;
    expect(pretty(schemaOf(cls, { strict: fixture.strict }))).toBe(golden(name));
  });

  it('serves the decorated read_file tool with the reconstructed golden and hash vector', () => {
    const vectors = (
      JSON.parse(fs.readFileSync(path.join(fixtures, 'definition_hash_vectors.json'), 'utf8')) as {
        vectors: { name: string; strict: boolean; hash: string }[];
      }
    ).vectors.filter((v) => v.name === 'read_file');
    expect(vectors).toHaveLength(2);

    @Tool({ name: 'read_file', description: 'Read a file from disk', args: ReadFileArgs })
    class ReadFile {
      execute(): string {
        return '';
      }
    }
    @Tool({
      name: 'read_file',
      description: 'Read a file from disk',
      args: ReadFileArgs,
      strict: true,
    })
    class StrictReadFile {
      execute(): string {
        return '';
      }
    }
    const loose = toolFromInstance(new ReadFile());
    const strict = toolFromInstance(new StrictReadFile());
    expect(pretty(loose.parameters!)).toBe(golden('read_file'));
    expect(definitionHash(loose)).toBe(vectors.find((v) => !v.strict)!.hash);
    expect(definitionHash(strict)).toBe(vectors.find((v) => v.strict)!.hash);
  });
});

describe('shapes the manifest rejects', () => {
  it('rejects a map under strict, naming the class and field', () => {
    expect(() => schemaOf(Everything, { strict: true })).toThrow(DecoratorError);
    expect(() => schemaOf(Everything, { strict: true })).toThrow(
      /Everything\.labels: maps cannot be expressed in a strict schema/,
    );
  });

  it('rejects an unknown type name (Go: int)', () => {
    class IntArgs {
      // A plain-JavaScript caller can pass any string; TypeScript would refuse it.
      @Param('', { type: 'int' as 'integer' }) n!: number;
    }
    expect(() => schemaOf(IntArgs)).toThrow(/IntArgs\.n: unknown type "int"/);
  });

  it('rejects an array without items', () => {
    class NoItems {
      @Param() list!: string[];
    }
    expect(() => schemaOf(NoItems)).toThrow(/NoItems\.list: an array needs its item type/);
  });
});
