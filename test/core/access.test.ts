import { type AccessRequest, accessOf, type AuthInfo, checkAccess, newTool, text } from 'agenttool';

const caller = (scopes: string[], subject = 'ada'): AuthInfo => ({
  subject,
  clientId: 'app',
  scopes,
});
const tool = (access: Parameters<typeof newTool>[0]['access']) =>
  newTool({ name: 'write', execute: () => text(''), access });
const request = (auth: AuthInfo | undefined): AccessRequest => ({ tool: 'write', auth });

describe('checkAccess', () => {
  it('allows every caller of a tool without rules, or with empty ones', async () => {
    for (const open of [tool(undefined), tool({}), tool({ scopes: [], guards: [] })]) {
      expect(accessOf(open)).toBeUndefined();
      expect(await checkAccess(open, request(undefined))).toEqual({ allowed: true });
    }
  });

  it('wants every scope, and names those the caller lacks; no credentials hold none', async () => {
    const guarded = tool({ scopes: ['files:read', 'files:write'] });
    expect(await checkAccess(guarded, request(caller(['files:read', 'files:write', 'x'])))).toEqual(
      { allowed: true },
    );
    expect(await checkAccess(guarded, request(caller(['files:read'])))).toEqual({
      allowed: false,
      reason: 'scope',
      missing: ['files:write'],
    });
    expect(await checkAccess(guarded, request(undefined))).toEqual({
      allowed: false,
      reason: 'scope',
      missing: ['files:read', 'files:write'],
    });
  });

  it('asks the guards in order once the scopes are there; only true allows', async () => {
    const asked: string[] = [];
    const guard =
      (name: string, answer: unknown) =>
      (r: AccessRequest): boolean => {
        asked.push(`${name} ${r.tool} ${r.auth?.subject ?? '-'}`);
        return answer as boolean;
      };
    expect(
      await checkAccess(
        tool({ scopes: ['s'], guards: [guard('first', true), guard('second', true)] }),
        request(caller(['s'])),
      ),
    ).toEqual({ allowed: true });
    expect(asked).toEqual(['first write ada', 'second write ada']);

    asked.length = 0;
    for (const answer of [false, 'yes', 1, undefined, Promise.resolve(true)]) {
      const verdict = await checkAccess(
        tool({ guards: [guard('only', answer), guard('never', true)] }),
        request(caller([])),
      );
      expect(verdict).toEqual(
        answer instanceof Promise ? { allowed: true } : { allowed: false, reason: 'guard' },
      );
    }
    expect(asked.filter((a) => a.startsWith('never'))).toHaveLength(1);
    // Scopes first: a caller without them never reaches a guard.
    asked.length = 0;
    await checkAccess(tool({ scopes: ['s'], guards: [guard('g', true)] }), request(caller([])));
    expect(asked).toEqual([]);
  });

  it('refuses when a guard throws or rejects, and hands the error back', async () => {
    const boom = new Error('policy down');
    for (const guard of [
      () => {
        throw boom;
      },
      () => Promise.reject(boom),
    ]) {
      expect(await checkAccess(tool({ guards: [guard] }), request(caller([])))).toEqual({
        allowed: false,
        reason: 'failed',
        error: boom,
      });
    }
  });

  it('never lets annotations stand in for a scope', async () => {
    const hinted = newTool({
      name: 'read',
      execute: () => text(''),
      annotations: { readOnly: true, idempotent: true, destructive: false },
      access: { scopes: ['files:read'] },
    });
    expect(await checkAccess(hinted, request(caller([])))).toMatchObject({ allowed: false });
  });

  it('newTool copies the rules it is given', () => {
    const scopes = ['a'];
    const made = tool({ scopes });
    scopes.push('b');
    expect(accessOf(made)?.scopes).toEqual(['a']);
  });
});
