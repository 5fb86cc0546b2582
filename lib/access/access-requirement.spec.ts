import {
  combineRequirements,
  grantsSignature,
  isScopeToken,
  judgedByGate,
  lacksRole,
  missingScopes,
  NO_GRANTS,
  permits,
} from './access-requirement.js';

const grants = (scopes: string[], roles: string[] = []) => ({ scopes: new Set(scopes), roles: new Set(roles) });

describe('access requirements', () => {
  it('needs every scope and one of the roles', () => {
    const requirement = { scopes: ['a', 'b'], roles: ['x', 'y'] };
    expect(permits(requirement, grants(['a', 'b'], ['y']))).toBe(true);
    expect(permits(requirement, grants(['a'], ['y']))).toBe(false);
    expect(permits(requirement, grants(['a', 'b'], ['z']))).toBe(false);
    expect(missingScopes(requirement, grants(['b']))).toEqual(['a']);
    expect(lacksRole(requirement, grants([], ['x']))).toBe(false);
    expect(permits(undefined, NO_GRANTS)).toBe(true);
    expect(permits({ scopes: [], roles: [] }, NO_GRANTS)).toBe(true);
  });

  it("adds a method's scopes to its class's, and lets its roles replace the class's", () => {
    expect(combineRequirements({ scopes: ['a'], roles: ['x'] }, { scopes: ['b', 'a'], roles: [] })).toEqual({
      scopes: ['a', 'b'],
      roles: ['x'],
    });
    expect(combineRequirements({ scopes: [], roles: ['x'] }, { scopes: [], roles: ['y'] })).toEqual({ scopes: [], roles: ['y'] });
    expect(combineRequirements(undefined, { scopes: ['a'], roles: [] })).toEqual({ scopes: ['a'], roles: [] });
  });

  it('leaves a requirement the requester meets without the grants (a reject tool of @McpApproval) to the gate, and holds it for menus', () => {
    const reject = { scopes: ['payments:approve'], roles: [], orRequester: true };
    expect(judgedByGate(reject)).toBe(true);
    expect(judgedByGate({ scopes: ['payments:approve'], roles: [] })).toBe(false);
    expect(judgedByGate(undefined)).toBe(false);
    expect(permits(reject, NO_GRANTS)).toBe(false);
    expect(permits(reject, grants(['payments:approve']))).toBe(true);
  });

  it('accepts only OAuth scope tokens', () => {
    expect(isScopeToken('payments:refund')).toBe(true);
    expect(isScopeToken('https://api.example.com/read')).toBe(true);
    for (const bad of ['', 'two words', 'quo"te', 'back\\slash', 'é']) expect(isScopeToken(bad)).toBe(false);
  });

  it('signs grants by their content, not their order', () => {
    expect(grantsSignature(grants(['b', 'a'], ['x']))).toBe(grantsSignature(grants(['a', 'b'], ['x'])));
    expect(grantsSignature(grants(['a']))).not.toBe(grantsSignature(grants([], ['a'])));
  });
});
