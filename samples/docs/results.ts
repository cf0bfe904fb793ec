import {
  filePart,
  imagePart,
  Param,
  parts,
  recordable,
  type Result,
  text,
  textPart,
  Tool,
} from 'agenttool';

/** A 1×1 transparent PNG. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII=',
  'base64',
);

class CountArgs {
  @Param('The text to count') text!: string;
}

/** A plain value: the model sees its JSON, `{"words":3}`. A string is the text itself. */
@Tool({ name: 'count_words', description: 'Count the words of a text', args: CountArgs })
export class CountWords {
  execute(args: CountArgs): { words: number } {
    return { words: args.text.split(/\s+/).filter(Boolean).length };
  }
}

class ChartArgs {
  @Param('The title of the chart') title!: string;
}

/** Content parts, and details that the host reads but the model never sees. */
@Tool({ name: 'chart', description: 'Draw a chart', args: ChartArgs })
export class Chart {
  execute(args: ChartArgs): Result {
    return {
      ...parts(textPart(`Chart "${args.title}"`), imagePart(PIXEL, 'image/png')),
      // Recordable details also cross MCP as a record, under the agenttool _meta key.
      details: recordable('chart:drawn', { title: args.title, points: 1 }),
    };
  }
}

/** A file, inline (base64 `file_data` with its name). */
@Tool({ name: 'export_csv', description: 'Export the table as CSV' })
export class ExportCsv {
  execute(): Result {
    const csv = Buffer.from('name,rows\norders,2\n');
    return parts(textPart('Exported 1 table'), filePart('tables.csv', csv));
  }
}

/** Asks the agent loop to stop: honoured when every result of the batch says so. */
@Tool({ name: 'finish', description: 'Report the task as done' })
export class Finish {
  execute(): Result {
    return { ...text('Done'), terminate: true };
  }
}
