import {
  AgentToolError,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type RecordFunc,
  type Tool,
  isToolClass,
  toolFromInstance,
} from 'agenttool';
import {
  type Constructor,
  isModuleClass,
  Module,
  ToolApp,
  type ToolAppOptions,
} from 'agenttool/di';

/**
 * What a test client serves: a `ToolApp` (the test's own, left open), a `@Module`
 * class (an app is built from it, and closed with the client), a `@Tool` class (built
 * in an app of its own, with injection as in a module), a tool, an instance of a `@Tool`
 * class, or an iterable (an array, a `ToolSet`) of tools, instances and `@Tool` classes.
 */
export type TestTarget = ToolApp | Constructor | Tool | object | Iterable<Tool | object>;

/** A target made servable: the source the server takes, and the app the client owns. */
export interface ServedTarget {
  readonly tools: readonly Tool[];
  readonly recorder: RecordFunc | undefined;
  readonly prompts: readonly Prompt[];
  readonly resources: readonly (McpResource | McpResourceTemplate)[];
  /** The app served, the test's own or one built for it; undefined for plain tools. */
  readonly app: ToolApp | undefined;
  /** The app built for the test, closed with the client; undefined for the test's own. */
  readonly owned: ToolApp | undefined;
}

const WHAT =
  'give a ToolApp, a @Module class, a @Tool class, a tool, or an array of tools and @Tool classes';

function invalid(message: string): AgentToolError {
  return new AgentToolError('INVALID_TOOL_SET', `agenttool/testing: testClient: ${message}`);
}

/** True for a tool object: a name and an execute function. */
function isTool(value: unknown): value is Tool {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { name?: unknown; execute?: unknown };
  return typeof candidate.name === 'string' && typeof candidate.execute === 'function';
}

function fromApp(app: ToolApp, owned: ToolApp | undefined): ServedTarget {
  return {
    tools: [...app.tools],
    recorder: app.recorder,
    prompts: app.prompts,
    resources: app.resources,
    app,
    owned,
  };
}

/**
 * The `@Tool` classes given alone, in a module of their own: the app resolves what
 * their constructors inject, as it would in the user's module.
 */
async function appOfToolClasses(
  classes: readonly Constructor[],
  options: ToolAppOptions | undefined,
): Promise<ToolApp> {
  const TestTools = class TestTools {};
  Module({ tools: [...classes] })(TestTools);
  return ToolApp.create(TestTools, options);
}

/** Reads what a test client is asked to serve, building the app it owns where needed. */
export async function serveTarget(
  target: TestTarget,
  appOptions: ToolAppOptions | undefined,
): Promise<ServedTarget> {
  if (target instanceof ToolApp) return fromApp(target, undefined);
  if (typeof target === 'function') {
    if (isModuleClass(target)) {
      const app = await ToolApp.create(target, appOptions);
      return fromApp(app, app);
    }
    if (isToolClass(target)) {
      const app = await appOfToolClasses([target], appOptions);
      return fromApp(app, app);
    }
    throw invalid(`${target.name || 'the class'} is neither a @Module nor a @Tool class; ${WHAT}`);
  }
  if (isTool(target)) return { tools: [target], ...nothingElse() };
  if (typeof target !== 'object' || target === null) {
    throw invalid(`got ${target === null ? 'null' : typeof target}; ${WHAT}`);
  }
  if (!(Symbol.iterator in target)) {
    if (isToolClass(target.constructor))
      return { tools: [toolFromInstance(target)], ...nothingElse() };
    throw invalid(`got an object that is not a tool; ${WHAT}`);
  }
  const tools: Tool[] = [];
  const classes: Constructor[] = [];
  let index = 0;
  for (const item of target as Iterable<unknown>) {
    if (isTool(item)) tools.push(item);
    else if (isToolClass(item)) classes.push(item);
    else if (typeof item === 'object' && item !== null && isToolClass(item.constructor)) {
      tools.push(toolFromInstance(item));
    } else {
      throw invalid(`item ${index} is not a tool, a @Tool class or an instance of one; ${WHAT}`);
    }
    index++;
  }
  if (classes.length === 0) return { tools, ...nothingElse() };
  const app = await appOfToolClasses(classes, appOptions);
  return { ...fromApp(app, app), tools: [...app.tools, ...tools] };
}

function nothingElse(): Omit<ServedTarget, 'tools'> {
  return { recorder: undefined, prompts: [], resources: [], app: undefined, owned: undefined };
}
