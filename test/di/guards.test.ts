/**
 * Guards in an app: a module's `guards` guard its tools and those of the modules it
 * imports, the root's first; guard classes are built once, with their module's
 * providers injected; `CallAuth` reads the caller of the call being served.
 */
import 'reflect-metadata';
import {
  type AccessRequest,
  checkAccess,
  createContext,
  Guard,
  outputText,
  Scopes,
  Tool,
} from 'agenttool';
import { CallAuth, type CanActivate, Injectable, Module, ToolApp } from 'agenttool/di';

const apps: ToolApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function create(module: new () => unknown): Promise<ToolApp> {
  const app = await ToolApp.create(module);
  apps.push(app);
  return app;
}

const as = (subject: string, scopes: string[] = []): AccessRequest => ({
  tool: 'x',
  auth: { subject, clientId: 'c', scopes },
});

describe('module guards', () => {
  it('guard the module tools and its imports, the root first, then the tool own', async () => {
    const asked: string[] = [];
    const guard = (name: string) => (): boolean => (asked.push(name), true);

    @Tool({ name: 'inner', description: '' })
    @Guard(guard('tool'))
    class Inner {
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [Inner], guards: [guard('feature')] })
    class FeatureModule {}
    @Module({ imports: [FeatureModule], guards: [guard('middle')] })
    class MiddleModule {}
    @Tool({ name: 'outer', description: '' })
    class Outer {
      execute(): string {
        return '';
      }
    }
    @Module({ imports: [MiddleModule], tools: [Outer], guards: [guard('root')] })
    class RootModule {}

    const app = await create(RootModule);
    await checkAccess(app.tools.lookup('inner')!, as('ada'));
    expect(asked).toEqual(['root', 'middle', 'feature', 'tool']);
    asked.length = 0;
    await checkAccess(app.tools.lookup('outer')!, as('ada'));
    expect(asked).toEqual(['root']);
  });

  it('builds a guard class once, with its module providers, shared by the tools it guards', async () => {
    let built = 0;
    @Injectable()
    class Roles {
      readonly admins = new Set(['root']);
    }
    @Injectable()
    class AdminsOnly implements CanActivate {
      constructor(private readonly roles: Roles) {
        built++;
      }
      canActivate(request: AccessRequest): boolean {
        return this.roles.admins.has(request.auth?.subject ?? '');
      }
    }
    @Tool({ name: 'one', description: '' })
    @Guard(AdminsOnly)
    class One {
      execute(): string {
        return '';
      }
    }
    @Tool({ name: 'two', description: '' })
    class Two {
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [One, Two], providers: [Roles], guards: [AdminsOnly] })
    class AdminModule {}

    const app = await create(AdminModule);
    expect(built).toBe(1);
    for (const name of ['one', 'two']) {
      expect(await checkAccess(app.tools.lookup(name)!, as('root'))).toEqual({ allowed: true });
      expect(await checkAccess(app.tools.lookup(name)!, as('ada'))).toEqual({
        allowed: false,
        reason: 'guard',
      });
    }
  });

  it('refuses a guard that needs a session-scoped provider, and an entry that is no guard', async () => {
    @Injectable({ scope: 'session' })
    class PerSession {}
    @Injectable()
    class Sessional implements CanActivate {
      constructor(readonly perSession: PerSession) {}
      canActivate(): boolean {
        return true;
      }
    }
    @Tool({ name: 't', description: '' })
    class T {
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [T], providers: [PerSession], guards: [Sessional, 42 as never] })
    class Broken {}
    await expect(ToolApp.create(Broken)).rejects.toThrow(
      /Broken guards\[1\]: 42 is not a guard[\s\S]*Broken: guard Sessional needs a session-scoped provider, but a guard is built once for the app; inject CallAuth or CallSession/,
    );
  });

  it('reports a guard class whose dependency nobody provides', async () => {
    @Injectable()
    class Missing {}
    @Injectable()
    class NeedsMissing implements CanActivate {
      constructor(readonly missing: Missing) {}
      canActivate(): boolean {
        return true;
      }
    }
    @Tool({ name: 't', description: '' })
    @Guard(NeedsMissing)
    class T {
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [T] })
    class Lacking {}
    await expect(ToolApp.create(Lacking)).rejects.toThrow(
      "Lacking: guard NeedsMissing's constructor parameter #0 needs Missing, but no provider of it is visible in Lacking",
    );
  });
});

describe('CallAuth', () => {
  it('reads the caller of the call being served', async () => {
    @Tool({ name: 'whoami', description: '' })
    @Scopes('profile')
    class WhoAmI {
      constructor(private readonly auth: CallAuth) {}
      execute(): string {
        return `${this.auth.subject ?? 'nobody'} ${String(this.auth.hasScopes('profile'))} ${String(this.auth.hasScopes('profile', 'admin'))}`;
      }
    }
    @Module({ tools: [WhoAmI] })
    class Who {}
    const app = await create(Who);
    const tool = app.tools.lookup('whoami')!;
    const auth = { subject: 'ada', clientId: 'c', scopes: ['profile'] };
    const call = { id: 'c1', args: '{}' };
    expect(outputText((await tool.execute(call, createContext({ call, auth }))).output)).toBe(
      'ada true false',
    );
    expect(outputText((await tool.execute(call, createContext({ call }))).output)).toBe(
      'nobody false false',
    );
    expect(new CallAuth().current).toBeUndefined();
  });
});
