/**
 * The agent-loop adapters inside each SDK's real loop, driven by the SDK's own scripted
 * test model, no network (test/fixtures/frameworks/*-loop.ts, on Node 24: ai 7 and
 * @openai/agents need Node 22). The model's first step returns two `bash` calls on the
 * resource `shell:session` and three reads, interleaved; left to itself each loop runs
 * all five at once. Through the adapters the commands run one after the other in the
 * model's order while the reads run together, and records, progress and a question
 * reach the host. The next step's call misses an argument.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FunctionToolDefinition, type ToolRecord } from 'agenttool';
import { buildFrameworkFixtures, killFixtures, runReport } from '../support/frameworks';

interface LoopReport {
  events: string[];
  peakReads: number;
  records: ToolRecord[];
  progress: string[];
  questions: string[];
  toolResults: { id: string; output: unknown }[];
  text: string;
  /** The contract's definitions of the same tools (`ToolSet.definitions()`). */
  contract: FunctionToolDefinition[];
  /** What the adapter answered for sources that are none (see `refusalsOf`). */
  refusals: string[];
}

interface AiSdkReport extends LoopReport {
  oddNames: { keys: string[]; plainPrototype: boolean };
  modelCalls: { stream: number; generate: number };
  toolResults: { id: string; output: { type: string; value: string } }[];
  definitions: { name: string; strict?: boolean; inputSchema: unknown }[];
}

interface AgentsReport extends LoopReport {
  toolResults: { id: string; output: { type: string; text: string } }[];
  definitions: { name: string; strict: boolean; parameters: unknown }[];
  /** Tool names the SDK rewrites: refusals, function names, outputs (the fixture's `namesReport`). */
  names: { refusals: string[]; functionNames: string[]; outputs: [string, unknown][] };
}

/** The refusals of `refusalsOf`'s sources, by the adapter's entry. */
function refusals(entry: string): string[] {
  return [
    `INVALID_TOOL_SET: ${entry}: give a tool, an iterable of tools, or an app, not null`,
    `INVALID_TOOL_SET: ${entry}: give a tool, an iterable of tools, or an app, not number 42`,
    `INVALID_TOOL_SET: ${entry}: tool[0]: not a tool (a tool has a string name and an execute function): an object`,
    `INVALID_TOOL_SET: ${entry}: tool "finish": duplicate name`,
    `INVALID_TOOL_SET: ${entry}: tool[1]: not a tool but the function or class Finish; a @Tool class becomes a tool with toolFromInstance(new Finish(…))`,
  ];
}

const OUTPUTS = [
  ['call_1', 'ran cd /tmp'],
  ['call_2', 'contents of a.txt'],
  ['call_3', 'contents of secret.txt'],
  ['call_4', 'ran pwd'],
  ['call_5', 'contents of c.txt'],
  ['call_6', 'Error: invalid arguments: missing required property "path"'],
];

// The schemas of the fixture's tools (test/fixtures/frameworks/step-tools.ts).
const PARAMETERS = {
  bash: {
    type: 'object',
    properties: { command: { type: 'string', description: 'The command line to run' } },
    required: ['command'],
  },
  read_file: {
    type: 'object',
    properties: { path: { type: 'string', description: 'The path to read' } },
    required: ['path'],
  },
  finish: {
    type: 'object',
    properties: { summary: { type: 'string', description: 'What was done' } },
    required: ['summary'],
    additionalProperties: false,
  },
};

/** What both loops must show of the first step. */
function expectBatchRules(report: LoopReport): void {
  const at = (event: string): number => {
    const index = report.events.indexOf(event);
    expect({ event, found: index >= 0 }).toEqual({ event, found: true });
    return index;
  };
  // The shell commands: the second starts only once the first has ended (left to the
  // loop, `pwd` would start at once and end first).
  expect(at('end bash cd /tmp')).toBeLessThan(at('start bash pwd'));
  // The reads: all three run at once, beside the first command.
  expect(report.peakReads).toBe(3);
  const reads = ['a.txt', 'secret.txt', 'c.txt'];
  const lastStart = Math.max(...reads.map((path) => at(`start read ${path}`)));
  const firstEnd = Math.min(...reads.map((path) => at(`end read ${path}`)));
  expect(lastStart).toBeLessThan(firstEnd);
  expect(at('start read a.txt')).toBeLessThan(at('end bash cd /tmp'));
  // Records written while the commands ran, progress, and the question put to the host.
  expect(report.records).toEqual([
    { ns: 'shell:command', data: '{"command":"cd /tmp"}' },
    { ns: 'shell:command', data: '{"command":"pwd"}' },
  ]);
  expect(report.progress).toEqual(['call_1: running cd /tmp', 'call_4: running pwd']);
  expect(report.questions).toEqual(['Read secret.txt?']);
  expect(report.text).toBe('All done.');
}

beforeAll(() => buildFrameworkFixtures(), 300_000);
afterAll(() => killFixtures());

describe.each([
  ['generateText', 'generate'],
  ['streamText', 'stream'],
])('agenttool/ai-sdk in %s with MockLanguageModelV4', (_loop, mode) => {
  let report: AiSdkReport;
  beforeAll(async () => {
    report = await runReport<AiSdkReport>('ai-sdk-loop', [mode]);
  }, 120_000);

  it("runs the step's calls by the batch rules, reaching the host", () => {
    expect(report.modelCalls).toEqual(
      mode === 'stream' ? { stream: 3, generate: 0 } : { stream: 0, generate: 3 },
    );
    expectBatchRules(report);
  });

  it("sends the model each result in the step's order, a failure as the contract's error text", () => {
    expect(report.toolResults.map((r) => [r.id, r.output.value])).toEqual(OUTPUTS);
    expect(report.toolResults.map((r) => r.output.type)).toEqual([
      ...Array<string>(5).fill('text'),
      'error-text',
    ]);
  });

  it("declares each tool with the contract's schema, strict where the tool is", () => {
    expect(report.definitions.map((d) => d.inputSchema)).toEqual(
      report.contract.map((d) => d.parameters),
    );
    expect(report.definitions).toEqual([
      { name: 'bash', inputSchema: PARAMETERS.bash },
      { name: 'read_file', inputSchema: PARAMETERS.read_file },
      { name: 'finish', strict: true, inputSchema: PARAMETERS.finish },
    ]);
  });

  it('refuses what is not a tool source, naming aiSdkTools and the problem', () => {
    expect(report.refusals).toEqual(refusals('aiSdkTools'));
  });

  it('keys every tool by its name, __proto__ and constructor too', () => {
    expect(report.oddNames).toEqual({ keys: ['__proto__', 'constructor'], plainPrototype: true });
  });
});

describe('agenttool/openai-agents in run() with ScriptedModel', () => {
  let report: AgentsReport;
  beforeAll(async () => {
    report = await runReport<AgentsReport>('openai-agents-loop');
  }, 120_000);

  it("runs the turn's calls by the batch rules, reaching the host", () => {
    expectBatchRules(report);
  });

  it("sends the model each result in the turn's order, a failure as Error: <message>", () => {
    expect(report.toolResults.map((r) => [r.id, r.output.text])).toEqual(OUTPUTS);
  });

  it("declares each tool with the contract's schema, strict where the tool is", () => {
    expect(report.definitions.map((d) => d.parameters)).toEqual(
      report.contract.map((d) => d.parameters),
    );
    expect(report.definitions).toEqual([
      { name: 'bash', strict: false, parameters: PARAMETERS.bash },
      { name: 'read_file', strict: false, parameters: PARAMETERS.read_file },
      { name: 'finish', strict: true, parameters: PARAMETERS.finish },
    ]);
  });

  it('refuses what is not a tool source, naming openAiAgentsTools and the problem', () => {
    expect(report.refusals).toEqual(refusals('openAiAgentsTools'));
  });

  // The SDK writes each character outside a-z, A-Z, 0-9 of a name as `_` and keeps only
  // the last of two function tools of one name: a call for `read_file` would run `read-file`.
  it('refuses two tools whose names the SDK makes one, naming both and the name they share', () => {
    const rule =
      '(the Agents SDK writes each character outside a-z, A-Z, 0-9 as "_"; the loop would keep only one of them)';
    expect(report.names.refusals).toEqual([
      `INVALID_TOOL_SET: openAiAgentsTools: tools "read_file" and "read-file": duplicate function tool name "read_file" ${rule}`,
      `INVALID_TOOL_SET: openAiAgentsTools: tools "fs__get_file" and "fs__get.file": duplicate function tool name "fs__get_file" ${rule}`,
      `INVALID_TOOL_SET: openAiAgentsTools: tools "a b" and "a.b": duplicate function tool name "a_b" ${rule}`,
    ]);
  });

  it('keeps names that stay apart, each call running its own tool', () => {
    // The function tools' names as the SDK's tool() wrote them: the rule the refusal checks.
    expect(report.names.functionNames).toEqual(['read_file', 'Read_File', 'fs_get']);
    expect(report.names.outputs).toEqual([
      ['name_1', { type: 'text', text: 'fs.get ran' }],
      ['name_2', { type: 'text', text: 'Read_File ran' }],
      ['name_3', { type: 'text', text: 'read_file ran' }],
    ]);
  });
});

describe('the agent-loop examples of docs/frameworks.md, over the sample workspace', () => {
  interface Run {
    text: string;
    outputs: [string, string][];
    records: string[];
  }
  let root: string;
  let report: { aiSdk: Run; agents: Run };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'agenttool-loops-'));
    report = await runReport('readme-loops', [], { WORKSPACE_ROOT: root });
  }, 120_000);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each(['aiSdk', 'agents'] as const)(
    '%s: runs the shell commands in order in one shell, the write alongside',
    (loop) => {
      expect(report[loop]).toEqual({
        text: 'Done.',
        outputs: [
          ['call_1', '(no output)'],
          ['call_2', `${join(root, 'logs')}\n`],
          ['call_3', `Wrote 6 bytes to ${join(root, 'hello.txt')}.`],
        ],
        records: ['shell:process-group', 'shell:process-group'],
      });
      expect(readFileSync(join(root, 'hello.txt'), 'utf8')).toBe('hello\n');
    },
  );
});
