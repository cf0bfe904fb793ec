import {
  createContext,
  definitionHash,
  outputSchemaOf,
  Param,
  type Result,
  text,
  Tool,
  toolDescriptorOf,
  toolFromInstance,
} from 'agenttool';

class Place {
  @Param('City name') city!: string;
  @Param('Country code', { optional: true }) country?: string;
}

class Forecast {
  @Param('Where') place!: Place;
  @Param('Degrees Celsius per hour', { items: 'number' }) hourly!: number[];
  @Param('Sky', { enum: ['clear', 'cloudy'] }) sky!: string;
  @Param('When it was read', { optional: true }) at?: Date;
}

const FORECAST_SCHEMA = {
  type: 'object',
  properties: {
    place: {
      type: 'object',
      description: 'Where',
      properties: {
        city: { type: 'string', description: 'City name' },
        country: { type: 'string', description: 'Country code' },
      },
      required: ['city'],
    },
    hourly: { type: 'array', description: 'Degrees Celsius per hour', items: { type: 'number' } },
    sky: { type: 'string', description: 'Sky', enum: ['clear', 'cloudy'] },
    at: { type: 'string', description: 'When it was read', format: 'date-time' },
  },
  required: ['place', 'hourly', 'sky'],
};

function forecast(): Forecast {
  const place = Object.assign(new Place(), { city: 'Oslo' });
  return Object.assign(new Forecast(), {
    place,
    hourly: [3, 4],
    sky: 'clear',
    at: new Date(Date.UTC(2026, 0, 2)),
  });
}

@Tool({ name: 'forecast', description: 'The forecast', output: Forecast })
class ForecastTool {
  execute(): Forecast {
    return forecast();
  }
}

@Tool({ name: 'forecast', description: 'The forecast' })
class UntypedForecastTool {
  execute(): Forecast {
    return forecast();
  }
}

async function run(instance: object): Promise<Result> {
  const call = { id: 'call_1', args: '' };
  return toolFromInstance(instance).execute(call, createContext({ call }));
}

describe('@Tool({ output })', () => {
  it('generates the output schema by the arguments rules, always non-strict', () => {
    expect(toolDescriptorOf(ForecastTool).outputSchema).toEqual(FORECAST_SCHEMA);
    expect(outputSchemaOf(toolFromInstance(new ForecastTool()))).toEqual(FORECAST_SCHEMA);
    expect(toolDescriptorOf(UntypedForecastTool).outputSchema).toBeUndefined();
    expect(outputSchemaOf(toolFromInstance(new UntypedForecastTool()))).toBeUndefined();
    @Tool({ name: 'strict_forecast', output: Forecast, strict: true })
    class StrictForecastTool {
      execute(): Forecast {
        return forecast();
      }
    }
    expect(toolDescriptorOf(StrictForecastTool).outputSchema).toEqual(FORECAST_SCHEMA);
  });

  it('leaves the definition hash of the tool as it is without an output class', () => {
    expect(toolDescriptorOf(ForecastTool).definitionHash).toBe(
      toolDescriptorOf(UntypedForecastTool).definitionHash,
    );
    expect(definitionHash(toolFromInstance(new ForecastTool()))).toBe(
      definitionHash(toolFromInstance(new UntypedForecastTool())),
    );
  });

  it('makes a returned instance the structured result, its JSON the output', async () => {
    const json =
      '{"place":{"city":"Oslo"},"hourly":[3,4],"sky":"clear","at":"2026-01-02T00:00:00.000Z"}';
    expect(await run(new ForecastTool())).toEqual({
      output: json,
      structured: JSON.parse(json) as unknown,
    });
    // Without an output class the same value is only its JSON text.
    expect(await run(new UntypedForecastTool())).toEqual({ output: json });
  });

  it('takes a plain object of the shape too, and keeps a Result as it is', async () => {
    @Tool({ name: 'plain', output: Place })
    class Plain {
      execute(): object {
        return { city: 'Rome' };
      }
    }
    @Tool({ name: 'own', output: Place })
    class Own {
      execute(): Result {
        return { ...text('Rome it is'), structured: { city: 'Rome' } };
      }
    }
    @Tool({ name: 'words', output: Place })
    class Words {
      execute(): string {
        return 'Rome';
      }
    }
    expect(await run(new Plain())).toEqual({
      output: '{"city":"Rome"}',
      structured: { city: 'Rome' },
    });
    expect(await run(new Own())).toEqual({ output: 'Rome it is', structured: { city: 'Rome' } });
    expect(await run(new Words())).toEqual({ output: 'Rome' });
  });

  it('fails a call whose result holds a number JSON has no form for, as Go does', async () => {
    @Tool({ name: 'ratio', output: Forecast })
    class Ratio {
      execute(): Forecast {
        return Object.assign(forecast(), { hourly: [3, 0 / 0] });
      }
    }
    @Tool({ name: 'ratio_text' })
    class RatioText {
      execute(): object {
        return { ratio: 1 / 0 };
      }
    }
    await expect(run(new Ratio())).rejects.toThrow('encode result: json: unsupported value: NaN');
    await expect(run(new RatioText())).rejects.toThrow(
      'encode result: json: unsupported value: +Inf',
    );
  });

  it('refuses byte fields and what is not a class, naming each', () => {
    class Blob {
      @Param('The bytes') data!: Buffer;
      @Param('More bytes', { items: Uint8Array }) chunks!: Uint8Array[];
    }
    @Tool({ name: 'blob', output: Blob })
    class BlobTool {
      execute(): void {}
    }
    expect(() => toolDescriptorOf(BlobTool)).toThrow(
      "output: Blob.data: bytes have no JSON string form in a structured result; declare a string and encode it (buffer.toString('base64'))",
    );
    expect(() => toolDescriptorOf(BlobTool)).toThrow('output: Blob.chunks: bytes');

    @Tool({ name: 'odd', output: 'Forecast' as never })
    class Odd {
      execute(): void {}
    }
    expect(() => toolDescriptorOf(Odd)).toThrow('Odd: @Tool output must be a class');
  });

  it('reports the problems of the output class with the tool’s', () => {
    class Loose {
      @Param('No type', { type: 'nonsense' as never }) what!: unknown;
    }
    @Tool({ name: 'loose', output: Loose })
    class LooseTool {
      execute(): void {}
    }
    expect(() => toolDescriptorOf(LooseTool)).toThrow(
      /output: Loose\.what: unknown type "nonsense"/,
    );
  });

  it('serves a supplied object schema verbatim and refuses any other', () => {
    class Supplied {
      static jsonSchema(): object {
        return { type: 'object', properties: { any: {} } };
      }
    }
    class Listed {
      static jsonSchema(): object {
        return { type: 'array' };
      }
    }
    @Tool({ name: 'supplied', output: Supplied })
    class SuppliedTool {
      execute(): object {
        return { any: 1 };
      }
    }
    @Tool({ name: 'listed', output: Listed })
    class ListedTool {
      execute(): void {}
    }
    expect(toolDescriptorOf(SuppliedTool).outputSchema).toEqual({
      type: 'object',
      properties: { any: {} },
    });
    expect(() => toolDescriptorOf(ListedTool)).toThrow(
      'output: Listed.jsonSchema() must return an object schema ("type": "object")',
    );
  });
});
