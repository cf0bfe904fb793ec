import { NO_ARGS_SCHEMA, schemaFromJson, schemaToJson, type Schema } from 'agenttool';

describe('the schema writer', () => {
  it('writes members in the RFC order whatever order they were given in', () => {
    const schema: Schema = {
      noAdditional: true,
      items: { type: 'string' },
      required: ['a'],
      properties: [{ name: 'a', schema: { enum: [1], type: 'integer', description: 'an a' } }],
      enum: [null],
      format: 'date-time',
      description: 'everything',
      nullable: true,
      type: 'object',
    };
    expect(JSON.stringify(schemaToJson(schema))).toBe(
      '{"type":["object","null"],"description":"everything","format":"date-time","enum":[null],' +
        '"properties":{"a":{"type":"integer","description":"an a","enum":[1]}},"required":["a"],' +
        '"items":{"type":"string"},"additionalProperties":false}',
    );
  });

  it('writes the no-arguments schema exactly', () => {
    expect(JSON.stringify(schemaToJson(NO_ARGS_SCHEMA))).toBe(
      '{"type":"object","properties":{},"required":[]}',
    );
  });

  it('writes a map as additionalProperties without properties', () => {
    expect(schemaToJson({ type: 'object', additionalProperties: { type: 'string' } })).toEqual({
      type: 'object',
      additionalProperties: { type: 'string' },
    });
  });

  it('reads its own output back', () => {
    const json = {
      type: 'object',
      properties: { when: { type: ['string', 'null'], format: 'date-time' } },
      required: ['when'],
      additionalProperties: false,
    };
    const schema = schemaFromJson(json);
    expect(schema).toBeDefined();
    expect(schemaToJson(schema!)).toEqual(json);
  });

  it('declines schemas outside the contract subset', () => {
    expect(schemaFromJson({ type: 'object', oneOf: [] })).toBeUndefined();
    expect(schemaFromJson({ $ref: '#/x' })).toBeUndefined();
    expect(schemaFromJson({ type: ['string', 'number'] })).toBeUndefined();
  });
});
