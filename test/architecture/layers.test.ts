import * as fs from 'node:fs';
import * as path from 'node:path';

// The layer arrows of DESIGN.md, checked on the source: core imports nothing of ours;
// decorators, executor and mcp import only core; di composes them; the shell and the
// workspace are built on the public entries (the workspace on the shell's too); cli and
// the framework adapters (nest, ai-sdk, openai-agents) sit on top and use the public
// entries only, as do the samples; nothing imports an adapter, and no layer below the
// adapters reaches a framework.
const SRC = path.join(__dirname, '../../src');
const SAMPLES = path.join(__dirname, '../../samples');
const PUBLIC = ['agenttool', 'agenttool/mcp', 'agenttool/di'];
/** The entries built on those: the sandboxed shell and the workspace tools. */
const TOOLS = ['agenttool/shell', 'agenttool/workspace'];
const ADAPTERS = ['nest', 'ai-sdk', 'openai-agents'];
/** The entries a user imports: the layers' and the adapters'. */
const USER_ENTRIES = [...PUBLIC, ...TOOLS, ...ADAPTERS.map((adapter) => `agenttool/${adapter}`)];
/** The packages only an adapter (or a sample, or a test) may load. */
const FRAMEWORKS =
  /^(@nestjs\/|ai$|ai\/|@ai-sdk\/|@openai\/agents|express$|fastify$|hono$|@hono\/|@modelcontextprotocol\/(express|fastify|hono)$)/;
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  decorators: ['core'],
  executor: ['core'],
  mcp: ['core'],
  di: ['core', 'decorators', 'executor', 'mcp'],
  shell: [],
  workspace: [],
  cli: [],
  nest: [],
  'ai-sdk': [],
  'openai-agents': [],
};
const PUBLIC_ENTRIES: Record<string, readonly string[]> = {
  shell: ['agenttool', 'agenttool/di'],
  workspace: ['agenttool', 'agenttool/di', 'agenttool/shell'],
  cli: [...PUBLIC, ...TOOLS],
  nest: PUBLIC,
  'ai-sdk': PUBLIC,
  'openai-agents': PUBLIC,
};

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const source = fs.readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  const pattern =
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of source.matchAll(pattern)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier !== undefined) specifiers.push(specifier);
  }
  return specifiers;
}

function resolveSource(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((c) => c.endsWith('.ts') && fs.existsSync(c));
}

function layerOf(file: string): string | undefined {
  const relative = path.relative(SRC, file);
  const first = relative.split(path.sep)[0];
  return relative.includes(path.sep) ? first : undefined;
}

describe('layer arrows', () => {
  for (const [layer, allowed] of Object.entries(ALLOWED)) {
    const entries = PUBLIC_ENTRIES[layer] ?? [];
    const what = [...allowed, ...entries];
    it(`${layer} imports only ${what.length === 0 ? 'nothing of ours' : what.join(', ')}`, () => {
      const offences: string[] = [];
      for (const file of sourceFiles(path.join(SRC, layer))) {
        for (const specifier of importsOf(file)) {
          if (specifier.startsWith('agenttool') && !entries.includes(specifier)) {
            offences.push(`${path.relative(SRC, file)} imports ${specifier}`);
            continue;
          }
          if (!specifier.startsWith('.')) continue;
          const target = resolveSource(file, specifier);
          const targetLayer = target === undefined ? undefined : layerOf(target);
          if (targetLayer === undefined) {
            offences.push(`${path.relative(SRC, file)} imports ${specifier} (outside the layers)`);
            continue;
          }
          if (targetLayer === layer) continue;
          if (!allowed.includes(targetLayer)) {
            offences.push(`${path.relative(SRC, file)} imports ${specifier} (${targetLayer})`);
          }
        }
      }
      expect(offences).toEqual([]);
    });
  }
});

describe('the adapters', () => {
  it('are imported by nothing of the library, and no other layer loads a framework', () => {
    const offences: string[] = [];
    for (const layer of Object.keys(ALLOWED).filter((l) => !ADAPTERS.includes(l))) {
      for (const file of sourceFiles(path.join(SRC, layer))) {
        for (const specifier of importsOf(file)) {
          const where = path.relative(SRC, file);
          if (FRAMEWORKS.test(specifier)) offences.push(`${where} imports ${specifier}`);
          if (ADAPTERS.some((adapter) => specifier === `agenttool/${adapter}`)) {
            offences.push(`${where} imports ${specifier}`);
          }
        }
      }
    }
    for (const file of sourceFiles(SRC).filter((f) => layerOf(f) === undefined)) {
      for (const specifier of importsOf(file)) {
        if (FRAMEWORKS.test(specifier))
          offences.push(`${path.relative(SRC, file)} imports ${specifier}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('each has a folder of its own, loaded through its own entry', () => {
    for (const adapter of ADAPTERS) {
      expect(fs.existsSync(path.join(SRC, adapter, 'index.ts'))).toBe(true);
    }
  });
});

describe('the samples', () => {
  it(`import agenttool only through its entries (${USER_ENTRIES.join(', ')})`, () => {
    const offences: string[] = [];
    const files = sourceFiles(SAMPLES);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      for (const specifier of importsOf(file)) {
        const where = path.relative(SAMPLES, file);
        if (specifier.startsWith('agenttool')) {
          if (!USER_ENTRIES.includes(specifier)) offences.push(`${where} imports ${specifier}`);
          continue;
        }
        if (!specifier.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), specifier);
        if (path.relative(SAMPLES, target).startsWith('..')) {
          offences.push(`${where} imports ${specifier} (outside samples/)`);
        }
      }
    }
    expect(offences).toEqual([]);
  });
});

describe('the root entry', () => {
  it('pulls in nothing from mcp or di, nor their libraries', () => {
    const reached = new Set<string>();
    const external = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) {
          external.add(specifier);
          continue;
        }
        const found = resolveSource(file, specifier);
        if (found !== undefined) visit(found);
      }
    };
    visit(path.join(SRC, 'index.ts'));
    const layers = new Set([...reached].map((f) => layerOf(f)).filter((l) => l !== undefined));
    expect([...layers].sort()).toEqual(
      ['core', 'decorators', 'executor'].filter((l) => layers.has(l)),
    );
    expect(layers.has('core')).toBe(true);
    const heavy = [...external].filter(
      (s) => s.startsWith('@modelcontextprotocol/') || s === 'tsyringe' || s === 'commander',
    );
    expect(heavy).toEqual([]);
  });
});
