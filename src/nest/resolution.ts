import { type Constructor } from 'agenttool';
import {
  type InjectionDescription,
  type ModuleDescription,
  type ProviderDescription,
} from 'agenttool/di';

/** A provider as asNestModule gives it to NestJS: one of the app's, or a copy of one. */
export interface PlannedProvider extends ProviderDescription {
  /**
   * For a copy of a resolution-scoped provider made for a tool built per call: one
   * instance per call (a request-scoped provider NestJS builds in the call's context).
   */
  readonly perCall?: boolean;
}

/** A module as asNestModule gives it to NestJS. */
export interface PlannedModule extends ModuleDescription {
  readonly providers: readonly PlannedProvider[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** True for a provider built for each injection (transient, resolution-scoped, or an alias of one). */
export function perInjection(provider: ProviderDescription): boolean {
  if (provider.kind === 'alias') {
    const target = provider.inject[0]?.provider;
    return target !== undefined && perInjection(target);
  }
  return provider.scope === 'transient' || provider.scope === 'resolution';
}

/**
 * What one instance's resolution builds for it beside the shared instances it gets: the
 * providers built per injection that it injects, and those they inject, in turn.
 */
function resolutionOf(inject: readonly InjectionDescription[]): Set<ProviderDescription> {
  const found = new Set<ProviderDescription>();
  const visit = (deps: readonly InjectionDescription[]): void => {
    for (const { provider } of deps) {
      if (provider === undefined || found.has(provider) || !perInjection(provider)) continue;
      found.add(provider);
      visit(provider.inject);
    }
  };
  visit(inject);
  return found;
}

/** One instance whose resolution holds a resolution-scoped provider. */
interface Root {
  /** Its provider; undefined for a module class. */
  readonly provider: ProviderDescription | undefined;
  readonly module: ModuleDescription;
  readonly label: string;
  readonly inject: readonly InjectionDescription[];
  readonly resolution: ReadonlySet<ProviderDescription>;
}

/**
 * The app's modules with tsyringe's resolution scope made of what NestJS's container
 * has. NestJS builds a transient provider once per injection and tells a factory
 * nothing of the resolution it is built for, so one instance cannot be shared among
 * everything built for one instance by NestJS's own means. Instead, each instance
 * whose resolution holds a resolution-scoped provider (an app- or session-scoped
 * provider, a module class, a tool built per call) gets copies of its own of the
 * providers built per injection it needs, directly or through transient ones: each
 * transient one a transient copy, each resolution-scoped one a copy of its scope
 * (a singleton for an app-scoped instance, one per session for a session's, one per
 * call for a tool built per call). Each copy is a provider of the original's module,
 * right after it (where its hooks come), under a token of its own, exported through
 * the modules its consumer sees the original through. The originals stay, for what
 * does not need copies.
 */
export function planResolution(modules: readonly ModuleDescription[]): PlannedModule[] {
  const roots = findRoots(modules);
  if (roots.length === 0) return [...modules];
  const copies = new Map<ProviderDescription, PlannedProvider[]>();
  const exports = new Map<Constructor, Set<symbol | Constructor>>();
  const rewritten = new Map<ProviderDescription, readonly InjectionDescription[]>();
  const moduleInject = new Map<ModuleDescription, readonly InjectionDescription[]>();

  for (const root of roots) {
    const tokens = new Map<ProviderDescription, symbol>();
    for (const original of root.resolution) {
      tokens.set(original, Symbol(`${original.label} for ${root.label}`));
    }
    const rewrite = (inject: readonly InjectionDescription[]): InjectionDescription[] =>
      inject.map((injection) => {
        const copy = injection.provider === undefined ? undefined : tokens.get(injection.provider);
        if (copy === undefined) return injection;
        // NestJS exports a module's own providers and the modules it imports, not a
        // token it imports: the module that provides the copy exports it, and each
        // module on the way re-exports the next.
        injection.through.forEach((through, i) => {
          const next = injection.through[i + 1];
          exports.set(through, (exports.get(through) ?? new Set()).add(next ?? copy));
        });
        return { ...injection, token: copy };
      });
    for (const original of root.resolution) {
      const copy: Mutable<PlannedProvider> = {
        ...original,
        token: tokens.get(original)!,
        inject: rewrite(original.inject),
        tool: false,
        primitive: undefined,
        guard: false,
      };
      if (original.scope === 'resolution') {
        const perCall = root.provider !== undefined && perInjection(root.provider);
        if (perCall) copy.perCall = true;
        else copy.scope = root.provider?.home === 'session' ? 'session' : 'app';
        copy.home = perCall ? original.home : (root.provider?.home ?? 'app');
      }
      copies.set(original, [...(copies.get(original) ?? []), copy]);
    }
    if (root.provider === undefined) moduleInject.set(root.module, rewrite(root.inject));
    else rewritten.set(root.provider, rewrite(root.inject));
  }

  return modules.map((module) => ({
    ...module,
    providers: module.providers.flatMap((provider) => {
      const inject = rewritten.get(provider);
      const own: PlannedProvider = inject === undefined ? provider : { ...provider, inject };
      return [own, ...(copies.get(provider) ?? [])];
    }),
    exports: [...module.exports, ...(exports.get(module.module) ?? [])],
    inject: moduleInject.get(module) ?? module.inject,
  }));
}

/**
 * The instances whose resolution holds a resolution-scoped provider, in the order
 * `ToolApp` builds them (what an instance needs first), which is the order its copies
 * are made in.
 */
function findRoots(modules: readonly ModuleDescription[]): Root[] {
  const roots: Root[] = [];
  const placed = new Set<ProviderDescription>();
  const moduleOf = new Map<ProviderDescription, ModuleDescription>();
  for (const module of modules) for (const p of module.providers) moduleOf.set(p, module);
  const consider = (provider: ProviderDescription): void => {
    if (placed.has(provider)) return;
    placed.add(provider);
    for (const dep of provider.inject) if (dep.provider !== undefined) consider(dep.provider);
    const served = provider.tool || provider.primitive !== undefined;
    const root = !perInjection(provider) || (served && provider.kind !== 'alias');
    if (!root || provider.kind === 'value' || provider.kind === 'alias') return;
    const resolution = resolutionOf(provider.inject);
    if (![...resolution].some((p) => p.scope === 'resolution')) return;
    roots.push({
      provider,
      module: moduleOf.get(provider)!,
      label: provider.label,
      inject: provider.inject,
      resolution,
    });
  };
  for (const module of modules) {
    for (const provider of module.providers) consider(provider);
    const resolution = resolutionOf(module.inject);
    if ([...resolution].some((p) => p.scope === 'resolution')) {
      roots.push({
        provider: undefined,
        module,
        label: module.module.name,
        inject: module.inject,
        resolution,
      });
    }
  }
  return roots;
}
