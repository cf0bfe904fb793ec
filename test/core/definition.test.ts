import * as fs from 'node:fs';
import * as path from 'node:path';
import { definitionHash, canonicalDefinition, newTool, text, type JsonObject } from 'agenttool';

interface Vector {
  name: string;
  description_in: string | null;
  strict: boolean;
  canonical: string;
  hash: string;
}

const vectors = (
  JSON.parse(
    fs.readFileSync(
      path.join(__dirname, '../fixtures/contract/definition_hash_vectors.json'),
      'utf8',
    ),
  ) as { vectors: Vector[] }
).vectors;

const readFileSchema = (strict: boolean): JsonObject =>
  JSON.parse(
    fs.readFileSync(
      path.join(
        __dirname,
        strict
          ? '../fixtures/contract/schema/read_file_strict.json'
          : '../fixtures/contract/schema.reconstructed/read_file.json',
      ),
      'utf8',
    ),
  ) as JsonObject;

describe('definition hash vectors', () => {
  it.each(vectors.map((v) => [`${v.name} strict=${v.strict} desc=${String(v.description_in)}`, v]))(
    '%s',
    (_label, vector) => {
      const tool = newTool({
        name: vector.name,
        ...(vector.description_in === null ? {} : { description: vector.description_in }),
        parameters: vector.name === 'read_file' ? readFileSchema(vector.strict) : undefined,
        strict: vector.strict,
        execute: () => text(''),
      });
      expect(canonicalDefinition(tool)).toBe(vector.canonical);
      expect(definitionHash(tool)).toBe(vector.hash);
    },
  );
});
