import {
  type AccessRequest,
  accessOf,
  type CanActivate,
  checkAccess,
  Guard,
  Scopes,
  Tool,
  toolFromInstance,
} from 'agenttool';

const as = (subject: string, scopes: string[] = []): AccessRequest => ({
  tool: 'x',
  auth: { subject, clientId: '', scopes },
});

class OnlyAda implements CanActivate {
  static built = 0;
  constructor() {
    OnlyAda.built++;
  }
  canActivate(request: AccessRequest): boolean {
    return request.auth?.subject === 'ada';
  }
}

describe('@Scopes and @Guard', () => {
  it('become the tool access: scopes, then the guards in order', async () => {
    const asked: string[] = [];
    @Tool({ name: 'write', description: 'writes' })
    @Scopes('files:write', 'files:read', 'files:write')
    @Guard(
      (r) => (asked.push('fn'), r.auth !== undefined),
      { canActivate: () => (asked.push('object'), true) },
      OnlyAda,
    )
    class Write {
      execute(): string {
        return 'ok';
      }
    }
    const before = OnlyAda.built;
    const tool = toolFromInstance(new Write());
    expect(OnlyAda.built).toBe(before + 1);
    expect(accessOf(tool)?.scopes).toEqual(['files:write', 'files:read']);
    expect(accessOf(tool)?.guards).toHaveLength(3);
    expect(await checkAccess(tool, as('ada', ['files:read', 'files:write']))).toEqual({
      allowed: true,
    });
    expect(asked).toEqual(['fn', 'object']);
    expect(await checkAccess(tool, as('bob', ['files:read', 'files:write']))).toEqual({
      allowed: false,
      reason: 'guard',
    });
  });

  it('are inherited unless the subclass states its own', () => {
    @Tool({ name: 'base', description: '' })
    @Scopes('a')
    class Base {
      execute(): string {
        return '';
      }
    }
    class Same extends Base {}
    @Scopes('b')
    class Other extends Base {}
    expect(accessOf(toolFromInstance(new Same()))?.scopes).toEqual(['a']);
    expect(accessOf(toolFromInstance(new Other()))?.scopes).toEqual(['b']);
  });

  it('report every bad argument at registration, naming the class', () => {
    class NotAGuard {}
    @Tool({ name: 'bad', description: '' })
    @Scopes('two words', '', 'ok')
    @Guard(NotAGuard as never, 'text' as never, {} as never)
    class Bad {
      execute(): string {
        return '';
      }
    }
    expect(() => toolFromInstance(new Bad())).toThrow(
      [
        'agenttool: tool class "Bad" has 5 problems:',
        '  - Bad: @Scopes takes OAuth scope names (printable, no spaces, quotes or backslashes); "two words" is not one',
        '  - Bad: @Scopes takes OAuth scope names (printable, no spaces, quotes or backslashes); "" is not one',
        "  - Bad: @Guard's guard #0: NotAGuard has no canActivate(request) method",
        `  - Bad: @Guard's guard #1: "text" is not a guard; give a function (request) => boolean, an object with canActivate(request), or a class of one`,
        "  - Bad: @Guard's guard #2: an object without canActivate is not a guard; give a function (request) => boolean, an object with canActivate(request), or a class of one",
      ].join('\n'),
    );
  });

  it('refuse empty lists and a second application', () => {
    @Tool({ name: 'empty', description: '' })
    @Scopes()
    @Guard()
    class Empty {
      execute(): string {
        return '';
      }
    }
    expect(() => toolFromInstance(new Empty())).toThrow(
      /@Scopes needs at least one scope[\s\S]*@Guard needs at least one guard/,
    );
    @Tool({ name: 'twice', description: '' })
    @Scopes('a')
    @Scopes('b')
    class Twice {
      execute(): string {
        return '';
      }
    }
    expect(() => toolFromInstance(new Twice())).toThrow(
      'Twice: @Scopes is applied twice; keep one',
    );
  });

  it('a guard class whose constructor takes parameters needs an app to build it', () => {
    class Needs implements CanActivate {
      constructor(readonly policy: string) {}
      canActivate(): boolean {
        return true;
      }
    }
    @Tool({ name: 'needs', description: '' })
    @Guard(Needs)
    class Guarded {
      execute(): string {
        return '';
      }
    }
    expect(() => toolFromInstance(new Guarded())).toThrow(
      "Guarded: guard Needs's constructor takes parameters; serve the tool from a ToolApp (it injects them), or give @Guard an instance",
    );
    const built = toolFromInstance(new Guarded(), { resolveGuard: () => new Needs('given') });
    expect(accessOf(built)?.guards).toHaveLength(1);
  });
});
