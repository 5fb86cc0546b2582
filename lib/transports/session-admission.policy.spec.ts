import { BUSY_RETRY_AFTER_SECONDS, decideAdmission, type McpAdmissionView, type McpSessionLimits } from './session-admission.policy.js';

const NOW = 10_000_000;
const limits: McpSessionLimits = { maxSessions: 4, maxPerAddress: 2, maxPerPrincipal: 3, idleTtlMs: 600_000, unusedTtlMs: 30_000 };

type Named = McpAdmissionView & { name: string };

/** A used, idle session last seen `idleMs` ago. */
function session(name: string, address: string, idleMs: number, extra: Partial<McpAdmissionView> = {}): Named {
  return { name, address, lastSeen: NOW - idleMs, openedAt: NOW - idleMs - 1_000, used: true, busy: false, holds: false, ...extra };
}

const names = (sessions: readonly Named[]) => sessions.map((entry) => entry.name);

describe('decideAdmission', () => {
  it('admits without evicting anything below every limit', () => {
    const decision = decideAdmission({ address: 'a' }, [session('s1', 'b', 5), session('s2', 'c', 5)], limits, NOW);
    expect(decision).toEqual({ admitted: true, evict: [] });
  });

  it('at maxSessions, evicts a session never used after initialize first, however recent, never a busy one', () => {
    const sessions = [
      session('busy-oldest', 'b', 90_000, { busy: true }),
      session('idle-old', 'c', 60_000),
      session('idle-recent', 'd', 1_000),
      session('unused-recent', 'e', 2_000, { used: false }),
    ];
    const decision = decideAdmission({ address: 'a' }, sessions, limits, NOW);
    expect(decision.admitted && names(decision.evict)).toEqual(['unused-recent']);
  });

  it('with no unused session, evicts the least recently used one that holds nothing', () => {
    const sessions = [
      session('busy-oldest', 'b', 90_000, { busy: true }),
      session('idle-old', 'c', 60_000),
      session('idle-recent', 'd', 1_000),
      session('holding-older', 'e', 80_000, { holds: true }),
    ];
    const decision = decideAdmission({ address: 'a' }, sessions, limits, NOW);
    expect(decision.admitted && names(decision.evict)).toEqual(['idle-old']);
  });

  it('never evicts a session that holds work, used or not, however long idle: refuses instead', () => {
    const sessions = [
      session('approved-invoice', 'b', 2_000, { holds: true }),
      session('followed-handle', 'c', 500_000, { holds: true }),
      session('get-stream-only', 'd', 90_000, { used: false, holds: true }),
      session('answering', 'e', 5, { busy: true }),
    ];
    expect(decideAdmission({ address: 'a' }, sessions, limits, NOW)).toEqual({
      admitted: false,
      limit: 'maxSessions',
      retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
    });
  });

  it('evicts unused sessions oldest first, then used ones that hold nothing, as many as it takes', () => {
    const sessions = [
      session('used-old', 'b', 70_000),
      session('unused-new', 'c', 1_000, { used: false, openedAt: NOW - 1_000 }),
      session('unused-old', 'd', 5_000, { used: false, openedAt: NOW - 5_000 }),
      session('holding', 'e', 99_000, { holds: true }),
      session('used-new', 'f', 3_000),
    ];
    const decision = decideAdmission({ address: 'a' }, sessions, limits, NOW);
    expect(decision.admitted && names(decision.evict)).toEqual(['unused-old', 'unused-new']);
    const more = decideAdmission({ address: 'a' }, sessions, { ...limits, maxSessions: 2 }, NOW);
    expect(more.admitted && names(more.evict)).toEqual(['unused-old', 'unused-new', 'used-old', 'used-new']);
  });

  it('may evict a session of the same address or principal while those are under their own limits', () => {
    const sessions = [
      session('mine', 'a', 60_000, { principal: 'p' }),
      session('s2', 'b', 5),
      session('s3', 'c', 5),
      session('s4', 'd', 5),
    ];
    const decision = decideAdmission({ address: 'a', principal: 'p' }, sessions, limits, NOW);
    expect(decision.admitted && names(decision.evict)).toEqual(['mine']);
  });

  it('evicts as many as it takes to get back under maxSessions', () => {
    const sessions = [1, 2, 3, 4, 5].map((n) => session(`s${n}`, `x${n}`, n * 1_000));
    const decision = decideAdmission({ address: 'a' }, sessions, limits, NOW);
    expect(decision.admitted && names(decision.evict)).toEqual(['s5', 's4']);
  });

  it('refuses at maxSessions when every session is busy, with the busy wait', () => {
    const sessions = ['b', 'c', 'd', 'e'].map((address) => session(address, address, 5_000, { busy: true }));
    expect(decideAdmission({ address: 'a' }, sessions, limits, NOW)).toEqual({
      admitted: false,
      limit: 'maxSessions',
      retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
    });
  });

  it('refuses an address that holds maxPerAddress sessions, even with room and idle sessions to evict, waiting for its first session to end', () => {
    const sessions = [
      // Unused: ends 30 s after its initialize, 12 s from now.
      session('unused', 'a', 0, { used: false, openedAt: NOW - 18_000 }),
      // Used: ends 10 minutes after its last request, 9 minutes from now.
      session('used', 'a', 60_000),
    ];
    expect(decideAdmission({ address: 'a' }, sessions, limits, NOW)).toEqual({
      admitted: false,
      limit: 'maxPerAddress',
      retryAfterSeconds: 12,
    });
    expect(decideAdmission({ address: 'b' }, sessions, limits, NOW)).toEqual({ admitted: true, evict: [] });
  });

  it('refuses a principal that holds maxPerPrincipal sessions from any address; anonymous candidates have no principal limit', () => {
    const sessions = ['b', 'c', 'd'].map((address, n) => session(`p${n}`, address, 60_000 + n * 1_000, { principal: 'alice' }));
    expect(decideAdmission({ address: 'a', principal: 'alice' }, sessions, limits, NOW)).toEqual({
      admitted: false,
      limit: 'maxPerPrincipal',
      // The longest idle one (62 s) ends first, 10 minutes after its last request.
      retryAfterSeconds: 538,
    });
    expect(decideAdmission({ address: 'a', principal: 'bob' }, sessions, limits, NOW)).toEqual({ admitted: true, evict: [] });
    expect(decideAdmission({ address: 'a' }, sessions, limits, NOW)).toEqual({ admitted: true, evict: [] });
  });

  it('counts sessions still opening (busy) against every limit, and waits the busy wait when all of an address are busy', () => {
    const opening = [session('o1', 'a', 0, { busy: true, used: false }), session('o2', 'a', 0, { busy: true, used: false })];
    expect(decideAdmission({ address: 'a' }, opening, limits, NOW)).toEqual({
      admitted: false,
      limit: 'maxPerAddress',
      retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
    });
  });

  it('never answers a wait below one second, even for a session past its time', () => {
    const sessions = [session('late', 'a', 0, { used: false, openedAt: NOW - 45_000 }), session('busy', 'a', 0, { busy: true })];
    expect(decideAdmission({ address: 'a' }, sessions, limits, NOW)).toEqual({
      admitted: false,
      limit: 'maxPerAddress',
      retryAfterSeconds: 1,
    });
  });

  it('never counts a connection without an address (stdio) against an address, but counts it against maxSessions', () => {
    const stdio: Named = { name: 'stdio', lastSeen: NOW, openedAt: NOW, used: true, busy: true, holds: true };
    const sessions = [stdio, session('s1', 'b', 1_000), session('s2', 'c', 2_000), session('s3', 'd', 3_000)];
    const decision = decideAdmission({ address: '' }, sessions, { ...limits, maxPerAddress: 1 }, NOW);
    expect(decision.admitted && names(decision.evict)).toEqual(['s3']);
  });

  it('turns a limit off with Infinity', () => {
    const sessions = Array.from({ length: 50 }, (_, n) => session(`s${n}`, 'a', n, { principal: 'p' }));
    const open = { maxSessions: Infinity, maxPerAddress: Infinity, maxPerPrincipal: Infinity, idleTtlMs: 1, unusedTtlMs: 1 };
    expect(decideAdmission({ address: 'a', principal: 'p' }, sessions, open, NOW)).toEqual({ admitted: true, evict: [] });
  });
});
