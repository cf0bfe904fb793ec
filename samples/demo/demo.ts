import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type Writable } from 'node:stream';
import {
  createContext,
  Executor,
  type Job,
  type JobOutcome,
  outputText,
  ProgressInfo,
  RecordFile,
  recordOf,
  type Result,
} from 'agenttool';
import { connectMcp } from 'agenttool/mcp';
import { Timeline } from './timeline';

/** Where the demo finds the command and the app, and where it writes. */
export interface DemoOptions {
  /** The built `agenttool` command (dist/pkg/agenttool.js). */
  readonly cli: string;
  /** The built workspace module (dist/src/workspace/workspace.module.js). */
  readonly moduleFile: string;
  /** Where the demo tells what happens. */
  readonly out: Writable;
  /**
   * The JSON-lines file every record is appended to; by default in the demo's temp
   * folder, removed with it at the end.
   */
  readonly recordsFile?: string;
  /** Shown as the command's path; by default the absolute paths. */
  readonly cwd?: string;
}

/** What a demo run did. */
export interface DemoRun {
  /** The workspace the batch ran in: inside the temp folder, removed by the time the run ends. */
  readonly root: string;
  readonly recordsFile: string;
  readonly outcomes: readonly JobOutcome[];
  readonly timeline: Timeline;
}

/** The shell calls name this resource (MCP does not carry it, so the client declares it). */
const SHELL = 'shell:session';

/**
 * The end-to-end demo: starts the workspace app as a separate MCP server process over
 * stdio (`agenttool serve --stdio`), connects with the MCP client, and runs one batch
 * through the executor: two reads in parallel, two shell commands chained on their
 * resource, a file write. Each call is shown live as it starts, reports progress and
 * ends; every record (the server's, written as each command starts, and the client's)
 * is appended durably to one JSON-lines file; the batch's timeline is printed at the
 * end. The workspace is a fresh temporary folder, so nothing else is touched; the folder
 * is removed at the end, whether the run succeeded or not.
 */
export async function runDemo(options: DemoOptions): Promise<DemoRun> {
  const say = (line = ''): void => void options.out.write(`${line}\n`);
  const base = await mkdtemp(join(tmpdir(), 'agenttool-demo-'));
  try {
    return await runIn(base, options, say);
  } finally {
    await rm(base, { recursive: true, force: true });
    say(
      `Removed the temporary folder ${base}${options.recordsFile === undefined ? ' (and the records in it; give a records file to keep them)' : ''}.`,
    );
  }
}

async function runIn(
  base: string,
  options: DemoOptions,
  say: (line?: string) => void,
): Promise<DemoRun> {
  const root = join(base, 'workspace');
  const recordsFile = options.recordsFile ?? join(base, 'records.jsonl');
  const records = new RecordFile(recordsFile);
  await mkdir(join(root, 'notes'), { recursive: true });
  await writeFile(
    join(root, 'notes/todo.txt'),
    'write the demo\nrun the demo\nread the timeline\n',
  );
  await writeFile(
    join(root, 'notes/ideas.md'),
    '# Ideas\n\n- tools as classes\n- batches with chains\n',
  );
  await records.open();

  const show = (path: string): string =>
    options.cwd === undefined ? path : relative(options.cwd, path) || path;
  const serverArgs = [options.cli, 'serve', options.moduleFile, '--stdio', '--record', recordsFile];
  const shown = [
    show(options.cli),
    'serve',
    show(options.moduleFile),
    '--stdio',
    '--record',
    recordsFile,
  ];
  say('agenttool demo');
  say(`  workspace: ${root}`);
  say(`  records:   ${recordsFile}`);
  say(`Starting the workspace app as an MCP server over stdio:`);
  say(`  node ${shown.join(' ')}`);
  const remote = await connectMcp({
    transport: { command: process.execPath, args: serverArgs, env: { WORKSPACE_ROOT: root } },
    resources: [{ resource: SHELL, tools: ['bash', 'restart'] }],
  });
  try {
    const tools = remote.tools();
    say(
      `Connected to ${remote.serverInfo.name} ${remote.serverInfo.version}: ${tools.map((t) => t.name).join(', ')}`,
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    const calls: [string, object][] = [
      ['read_file', { path: 'notes/todo.txt' }],
      ['read_file', { path: 'notes/ideas.md' }],
      ['bash', { command: 'cd notes && sleep 0.3 && wc -l todo.txt ideas.md && export SEEN=yes' }],
      ['bash', { command: 'echo "still in $(basename "$PWD"), SEEN=$SEEN"' }],
      ['write_file', { path: 'summary.md', content: '# Summary\n\nThe demo ran.\n' }],
    ];
    const labels = calls.map(([name], i) => `#${i + 1} ${name}`);
    const jobs: Job[] = calls.map(([name, args], i) => ({
      tool: byName.get(name),
      call: { id: `call_${i + 1}`, args: JSON.stringify(args) },
    }));
    const toolOf = (id: string): string | undefined => calls[Number(id.slice(5)) - 1]?.[0];
    const timeline = new Timeline(labels);
    const at = (): string => `+${Math.round(timeline.now()).toString().padStart(5)} ms`;
    const executor = new Executor({
      onStart: (job) => {
        const index = jobs.findIndex((j) => j.call.id === job.call.id);
        timeline.started(index);
        say(`  ${at()}  start  ${labels[index]} ${job.call.args}`);
      },
      recorder: records.recorder(toolOf),
    });

    say();
    say('The batch, as a model would send it:');
    calls.forEach(([name, args], i) => say(`  #${i + 1} ${name} ${JSON.stringify(args)}`));
    const chains = executor.chains(jobs).filter((chain) => chain.length > 1);
    for (const chain of chains) {
      say(`  ${chain.map((i) => `#${i + 1}`).join(' then ')} share ${SHELL}: one chain, in order`);
    }
    say();
    say('Running (live):');
    const outcomes: JobOutcome[] = jobs.map(() => ({ error: new Error('no final event') }));
    for await (const event of executor.execute(jobs, { context: createContext() })) {
      const label = labels[event.index]!;
      if (!event.final) {
        say(`  ${at()}  ...    ${label} ${progressText(event.result)}`);
        continue;
      }
      timeline.ended(event.index);
      outcomes[event.index] =
        event.error === undefined ? { result: event.result } : { error: event.error };
      say(
        `  ${at()}  done   ${label}${event.error === undefined ? '' : ` FAILED: ${event.error.message}`}`,
      );
      if (event.result !== undefined)
        await recordEnd(records, event.result, jobs[event.index]!, toolOf);
    }

    say();
    say('Results:');
    outcomes.forEach((outcome, i) => {
      const text =
        outcome.error !== undefined
          ? `Error: ${outcome.error.message}`
          : outputText(outcome.result.output);
      say(`  ${labels[i]}: ${text.trim().replace(/\n/g, '\n      ')}`);
    });
    say();
    say('Timeline (each bar from the moment the call was handed to its tool to its result):');
    say(timeline.render());
    say();
    say('What ran alongside what:');
    const before = new Map<number, number>();
    for (const chain of chains) chain.slice(1).forEach((job, k) => before.set(job, chain[k]!));
    labels.forEach((label, i) => {
      const with_ = timeline.alongside(i).map((j) => labels[j]);
      const previous = before.get(i);
      const after =
        previous === undefined ? '' : `; after ${labels[previous]}, its chain on ${SHELL}`;
      say(
        `  ${label.padEnd(14)} ${with_.length === 0 ? 'alone' : `with ${with_.join(', ')}`}${after}`,
      );
    });
    await records.close();
    const lines = (await readFile(recordsFile, 'utf8')).split('\n').filter((l) => l !== '');
    say();
    say(`Records (${lines.length}, appended durably to ${recordsFile}):`);
    for (const line of lines) say(`  ${line}`);
    return { root, recordsFile, outcomes, timeline };
  } finally {
    await records.close();
    await remote.close();
  }
}

function progressText(update: Result): string {
  const info = update.details;
  const text = outputText(update.output).trim();
  if (!(info instanceof ProgressInfo)) return text;
  const of = info.total > 0 ? `${info.progress}/${info.total}` : `${info.progress}`;
  // One line per update: a command's output may span several.
  return `${of} ${info.message || text}`.trim().replace(/\s*\n\s*/g, ' | ');
}

// A result whose details are recordable is the call's record as it ended.
async function recordEnd(
  records: RecordFile,
  result: Result,
  job: Job,
  toolOf: (id: string) => string | undefined,
): Promise<void> {
  const record = recordOf(result.details);
  if (record === undefined) return;
  const tool = toolOf(job.call.id);
  await records.write(record, {
    call: job.call.id,
    tool,
    moment: 'end',
  });
}
