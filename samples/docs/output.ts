import {
  Executor,
  type JsonObject,
  Param,
  type Result,
  structuredResult,
  Tool,
  toolFromInstance,
} from 'agenttool';
import { connectMcp, serveTools } from 'agenttool/mcp';

class Reading {
  @Param('Degrees Celsius') celsius!: number;
  @Param('The city it was read in') city!: string;
  @Param('The sky', { enum: ['clear', 'cloudy', 'rain'] }) sky!: string;
}

class CityArgs {
  @Param('The city') city!: string;
}

/** Returns an instance of its output class: the structured result, its JSON the output. */
@Tool({ name: 'weather', description: 'The weather in a city', args: CityArgs, output: Reading })
export class Weather {
  execute(args: CityArgs): Reading {
    return Object.assign(new Reading(), { celsius: 21, city: args.city, sky: 'clear' });
  }
}

/** A text of its own for the model, and the structured result beside it. */
@Tool({ name: 'forecast', description: 'The weather in words', args: CityArgs, output: Reading })
export class Forecast {
  execute(args: CityArgs): Result {
    const reading = { celsius: 18, city: args.city, sky: 'rain' };
    return structuredResult(reading, `Rain in ${args.city} at ${reading.celsius} °C`);
  }
}

/** What a host reads of each remote tool: its output schema, output and structured result. */
export interface Seen {
  readonly tool: string;
  readonly outputSchema: JsonObject | undefined;
  readonly output: unknown;
  readonly structured: JsonObject | undefined;
}

/** Serves both tools over HTTP and calls them through our client and the executor. */
export async function readWeather(city: string): Promise<Seen[]> {
  const tools = [toolFromInstance(new Weather()), toolFromInstance(new Forecast())];
  const server = serveTools(tools, { name: 'weather' });
  const { url } = await server.listenHttp();
  const remote = await connectMcp({ transport: { url } });
  try {
    const jobs = remote.tools().map((tool) => ({
      tool,
      call: { id: `call_${tool.name}`, args: JSON.stringify({ city }) },
    }));
    const outcomes = await new Executor().results(jobs);
    return outcomes.map((outcome, i) => {
      if (outcome.error) throw outcome.error;
      const { output, structured } = outcome.result;
      return {
        tool: jobs[i]!.tool.name,
        outputSchema: jobs[i]!.tool.outputSchema,
        output,
        structured,
      };
    });
  } finally {
    await remote.close();
    await server.close();
  }
}
