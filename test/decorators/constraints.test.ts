/**
 * class-validator constraints in the served schema: each with a JSON Schema counterpart
 * is written after the contract's members, so the model sees it; class-validator still
 * checks it. Classes without such constraints keep their schemas byte for byte.
 */
import 'reflect-metadata';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayNotEmpty,
  ArrayUnique,
  Contains,
  IsAlpha,
  IsDateString,
  IsDivisibleBy,
  IsEmail,
  IsInt,
  IsIP,
  IsNegative,
  IsNotEmpty,
  IsPositive,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinDate,
  MinLength,
  ValidateIf,
} from 'class-validator';
import {
  argumentsParser,
  createContext,
  definitionHash,
  Param,
  schemaOf,
  Tool,
  toolDescriptorOf,
  toolFromInstance,
  ValidationError,
} from 'agenttool';
import { McpToolServer, type RemoteTools } from 'agenttool/mcp';
import { CONSTRAINT_KEYWORDS } from '../../src/core/schema';
import { withInMemoryClient } from '../support/in-memory';

/** The schema of a class with one field `f`, without the field's type and description. */
function keywordsOf(cls: new () => object): Record<string, unknown> {
  const schema = schemaOf(cls) as { properties: { f: Record<string, unknown> } };
  const { type: _type, description: _description, ...rest } = schema.properties.f;
  return rest;
}

describe('the constraint table', () => {
  class MinMax {
    @Param('n') @Min(1) @Max(5) f!: number;
  }
  class Positive {
    @Param('n') @IsPositive() f!: number;
  }
  class Negative {
    @Param('n', { type: 'integer' }) @IsNegative() f!: number;
  }
  class Divisible {
    @Param('n') @IsInt() @IsDivisibleBy(3) f!: number;
  }
  class Lengths {
    @Param('s') @MinLength(2) @MaxLength(8) f!: string;
  }
  class Ranged {
    @Param('s') @Length(2, 8) f!: string;
  }
  class AtLeast {
    @Param('s') @Length(2) f!: string;
  }
  class NotEmpty {
    @Param('s') @IsNotEmpty() f!: string;
  }
  class Pattern {
    @Param('s') @Matches(/^[a-z]+$/) f!: string;
  }
  class PatternText {
    @Param('s') @Matches('^\\d{3}$') f!: string;
  }
  class Email {
    @Param('s') @IsEmail() f!: string;
  }
  class Url {
    @Param('s') @IsUrl() f!: string;
  }
  class Uuid {
    @Param('s') @IsUUID('4') f!: string;
  }
  class Ip4 {
    @Param('s') @IsIP('4') f!: string;
  }
  class Ip6 {
    @Param('s') @IsIP(6) f!: string;
  }
  class Sizes {
    @Param('a', { items: 'string' }) @ArrayMinSize(1) @ArrayMaxSize(3) f!: string[];
  }
  class NonEmptyList {
    @Param('a', { items: 'number' }) @ArrayNotEmpty() f!: number[];
  }
  class Unique {
    @Param('a', { items: 'string' }) @ArrayUnique() f!: string[];
  }
  class EachItem {
    @Param('a', { items: 'string' })
    @MaxLength(4, { each: true })
    @IsEmail({}, { each: true })
    f!: string[];
  }

  it.each([
    ['@Min, @Max', MinMax, { minimum: 1, maximum: 5 }],
    ['@IsPositive', Positive, { exclusiveMinimum: 0 }],
    ['@IsNegative', Negative, { exclusiveMaximum: 0 }],
    ['@IsDivisibleBy', Divisible, { multipleOf: 3 }],
    ['@MinLength, @MaxLength', Lengths, { minLength: 2, maxLength: 8 }],
    ['@Length(min, max)', Ranged, { minLength: 2, maxLength: 8 }],
    ['@Length(min)', AtLeast, { minLength: 2 }],
    ['@IsNotEmpty', NotEmpty, { minLength: 1 }],
    ['@Matches(regexp)', Pattern, { pattern: '^[a-z]+$' }],
    ['@Matches(source)', PatternText, { pattern: '^\\d{3}$' }],
    ['@IsEmail', Email, { format: 'email' }],
    ['@IsUrl', Url, { format: 'uri' }],
    ['@IsUUID', Uuid, { format: 'uuid' }],
    ['@IsIP(4)', Ip4, { format: 'ipv4' }],
    ['@IsIP(6)', Ip6, { format: 'ipv6' }],
    [
      '@ArrayMinSize, @ArrayMaxSize',
      Sizes,
      { items: { type: 'string' }, minItems: 1, maxItems: 3 },
    ],
    ['@ArrayNotEmpty', NonEmptyList, { items: { type: 'number' }, minItems: 1 }],
    ['@ArrayUnique', Unique, { items: { type: 'string' }, uniqueItems: true }],
    ['{ each: true }', EachItem, { items: { type: 'string', format: 'email', maxLength: 4 } }],
  ] as const)('%s', (_name, cls, expected) => {
    expect(keywordsOf(cls)).toEqual(expected);
  });

  it('writes the keywords after the contract’s members, in a fixed order', () => {
    class Ordered {
      @Param('How many', { enum: [2, 4, 8] }) @Max(8) @IsPositive() @Min(2) count!: number;
      @Param('Tags', { items: 'string' })
      @ArrayUnique()
      @ArrayMaxSize(3)
      @MinLength(1, { each: true })
      tags!: string[];
      @Param('Mail') @MaxLength(50) @IsEmail() mail!: string;
    }
    expect(JSON.stringify(schemaOf(Ordered))).toBe(
      '{"type":"object","properties":{' +
        '"count":{"type":"number","description":"How many","enum":[2,4,8],"minimum":2,"exclusiveMinimum":0,"maximum":8},' +
        '"tags":{"type":"array","description":"Tags","items":{"type":"string","minLength":1},"maxItems":3,"uniqueItems":true},' +
        '"mail":{"type":"string","description":"Mail","format":"email","maxLength":50}' +
        '},"required":["count","tags","mail"]}',
    );
  });

  it('keeps the tightest of several bounds', () => {
    class Tight {
      @Param('n') @Min(1) @Min(3) @Max(9) @Max(7) f!: number;
    }
    expect(keywordsOf(Tight)).toEqual({ minimum: 3, maximum: 7 });
  });

  it('writes nothing for constraints without a counterpart, or that do not always apply', () => {
    class NoCounterpart {
      @Param('s') @IsAlpha() @Contains('x') @IsDateString() a!: string;
      @Param('d') @MinDate(new Date(0)) b!: Date;
    }
    class Conditional {
      @Param('n') @ValidateIf((o: { on?: boolean }) => o.on === true) @Min(1) a!: number;
      @Param('n') @Min(1, { groups: ['admin'] }) b!: number;
      @Param('n') @Min(1, { validateIf: () => false }) c!: number;
    }
    class NotExact {
      @Param('s') @Matches(/^[a-z]+$/i) a!: string;
      @Param('s') @Matches('^\\d+\\:\\d+$') b!: string;
      @Param('s') @IsEmail({ allow_display_name: true }) c!: string;
      @Param('s') @IsUrl({ require_tld: false }) d!: string;
      @Param('s') @IsIP() e!: string;
      @Param('a', { items: 'any' }) @ArrayUnique() f!: unknown[];
    }
    class WrongShape {
      @Param('s') @Min(1) a!: string;
      @Param('n') @MinLength(1) b!: number;
      @Param('b') @IsEmail() c!: Buffer;
    }
    const added = [...CONSTRAINT_KEYWORDS, 'format'];
    for (const cls of [NoCounterpart, Conditional, NotExact, WrongShape]) {
      const schema = schemaOf(cls) as { properties: Record<string, Record<string, unknown>> };
      for (const [name, field] of Object.entries(schema.properties)) {
        const written = Object.keys(field).filter((key) => added.includes(key));
        // A Date field has its own format, date-time; nothing else is added.
        expect({ cls: cls.name, name, written }).toEqual({
          cls: cls.name,
          name,
          written: field.format === 'date-time' ? ['format'] : [],
        });
      }
    }
    // The escape \: is refused with the u flag that JSON Schema validators read patterns with.
    const source = String.raw`^\d+\:\d+$`;
    expect(() => new RegExp(source, 'u')).toThrow();
  });

  it('leaves classes without such constraints byte for byte as they were', () => {
    class Plain {
      @Param('n', { type: 'integer' }) n!: number;
      @Param('s', { optional: true }) s?: string;
    }
    class Carried {
      @Param('n') @IsInt() n!: number;
      @Param('s', { optional: true }) s?: string;
    }
    expect(JSON.stringify(schemaOf(Carried))).toBe(JSON.stringify(schemaOf(Plain)));
    expect(JSON.stringify(schemaOf(Plain))).toBe(
      '{"type":"object","properties":{"n":{"type":"integer","description":"n"},"s":{"type":"string","description":"s"}},"required":["n"]}',
    );
  });

  it('puts the keywords in the definition, so its hash changes with them', () => {
    class Bounded {
      @Param('n') @Min(1) n!: number;
    }
    class Unbounded {
      @Param('n') n!: number;
    }
    @Tool({ name: 'count', args: Bounded })
    class BoundedTool {
      execute(): string {
        return '';
      }
    }
    @Tool({ name: 'count', args: Unbounded })
    class UnboundedTool {
      execute(): string {
        return '';
      }
    }
    expect(toolDescriptorOf(BoundedTool).definitionHash).not.toBe(
      toolDescriptorOf(UnboundedTool).definitionHash,
    );
    expect(definitionHash(toolFromInstance(new UnboundedTool()))).toBe(
      toolDescriptorOf(UnboundedTool).definitionHash,
    );
  });
});

class Order {
  @Param('How many') @IsInt() @Min(1) @Max(10) quantity!: number;
  @Param('Where to send the receipt') @IsEmail() email!: string;
}

@Tool({ name: 'order', description: 'Place an order', args: Order })
class PlaceOrder {
  execute(args: Order): string {
    return `${args.quantity} for ${args.email}`;
  }
}

class Tags {
  @Param('Short tags', { items: 'string' }) @MaxLength(4, { each: true }) tags!: string[];
}

class Address {
  @Param('The postal code') @Length(5, 5) zip!: string;
}

class Shipment {
  @Param('Where to send it') address!: Address;
}

@Tool({ name: 'tag', description: 'Tags a thing', args: Tags })
class TagThing {
  execute(args: Tags): string {
    return args.tags.join(',');
  }
}

@Tool({ name: 'ship', description: 'Ships a thing', args: Shipment })
class ShipThing {
  execute(args: Shipment): string {
    return args.address.zip;
  }
}

/** Runs `body` with a client connected in memory to a server of these tool instances. */
function withServed(
  instances: object[],
  body: (remote: RemoteTools) => Promise<void>,
): Promise<void> {
  const tools = instances.map((instance) => toolFromInstance(instance));
  return withInMemoryClient(new McpToolServer(tools, { name: 'shop' }), body);
}

describe('constraints shown in the schema', () => {
  it('are still checked by class-validator, in its words', async () => {
    const error = await Promise.resolve()
      .then(() => argumentsParser(Order)('{"quantity":0,"email":"nope"}'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      'invalid arguments: quantity: quantity must not be less than 1; email: email must be an email',
    );
  });

  it('are served over MCP, and refused there in the same words as in process', async () => {
    await withServed([new PlaceOrder()], async (remote) => {
      const tool = remote.tools()[0]!;
      expect(tool.parameters).toEqual(schemaOf(Order));
      const call = { id: 'call_1', args: '{"quantity":2,"email":"ann@example.com"}' };
      expect((await tool.execute(call, createContext({ call }))).output).toBe(
        '2 for ann@example.com',
      );
      // class-validator's refusals reach the model in the contract's words, all at once,
      // as in process; what the schema's subset refuses, in the Go server's.
      const wrong = { id: 'call_2', args: '{"quantity":0,"email":"nope"}' };
      await expect(tool.execute(wrong, createContext({ call: wrong }))).rejects.toThrow(
        new Error(
          'invalid arguments: quantity: quantity must not be less than 1; email: email must be an email',
        ),
      );
      const over = { id: 'call_3', args: '{"quantity":11,"email":"ann@example.com"}' };
      await expect(tool.execute(over, createContext({ call: over }))).rejects.toThrow(
        new Error('invalid arguments: quantity: quantity must not be greater than 10'),
      );
      const typed = { id: 'call_4', args: '{"quantity":"2","email":"ann@example.com"}' };
      await expect(tool.execute(typed, createContext({ call: typed }))).rejects.toThrow(
        new Error(
          'invalid arguments: validating root: validating /properties/quantity: type: 2 has type "string", want "integer"',
        ),
      );
    });
  });

  it('are left to class-validator over MCP wherever they sit: on array items, in a nested class', async () => {
    // Only nested constraints here: the served check must find them below the root too,
    // or it would refuse first, in the Go server's words.
    await withServed([new TagThing(), new ShipThing()], async (remote) => {
      const [tag, ship] = ['tag', 'ship'].map((name) =>
        remote.tools().find((t) => t.name === name)!,
      );
      const long = { id: 'call_1', args: '{"tags":["ok","toolong"]}' };
      await expect(tag!.execute(long, createContext({ call: long }))).rejects.toThrow(
        new Error(
          'invalid arguments: tags: each value in tags must be shorter than or equal to 4 characters',
        ),
      );
      const wrongZip = { id: 'call_2', args: '{"address":{"zip":"1"}}' };
      await expect(ship!.execute(wrongZip, createContext({ call: wrongZip }))).rejects.toThrow(
        /^invalid arguments: address\.zip: zip must be longer than or equal to 5 characters$/,
      );
      const fine = { id: 'call_3', args: '{"address":{"zip":"12345"}}' };
      expect((await ship!.execute(fine, createContext({ call: fine }))).output).toBe('12345');
    });
  });
});
