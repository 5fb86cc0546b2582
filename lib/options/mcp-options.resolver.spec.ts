import { Injectable } from '@nestjs/common';
import { WorkflowGate } from '../gating/workflow-gate.js';
import { InMemoryFsmStateStore } from '../stores/in-memory-fsm-state.store.js';
import { InMemoryMcpSessionStore } from '../stores/in-memory-mcp-session.store.js';
import { clientAddressOf } from '../transports/client-address.js';
import type { McpSessionOptions } from '../sessions/session-options.interface.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import { resolveMcpOptions } from './mcp-options.resolver.js';

@Injectable()
class OwnGate extends WorkflowGate {}

const store = new InMemoryFsmStateStore();
const sessionStore = new InMemoryMcpSessionStore();
const clientAddress = () => 'proxy';
const inputRequests = { requestStateKey: 'a-key-of-at-least-thirty-two-bytes' };

/** A configuration that sets every group. */
const grouped: McpModuleOptions = {
  name: 'billing',
  version: '1.0.0',
  store,
  transports: {
    http: {
      path: '/billing/mcp',
      stateless: true,
      singleTenant: true,
      sessions: { store: sessionStore, maxSessions: 50, idleTtlMs: 60_000, clientAddress },
      protocolEras: ['2025-11-25'],
      listCacheTtlMs: 1_000,
    },
  },
  gate: {
    useClass: OwnGate,
    handleToolsMenu: 'all',
    refusal: 'jsonrpc',
    leaseMs: 3_000,
    retention: { finishedMs: 10_000 },
    transactional: true,
    idempotency: { retentionMs: 3_600_000 },
  },
  inputRequests,
};

describe('resolveMcpOptions', () => {
  it('resolves each group where it is given', () => {
    expect(resolveMcpOptions(grouped).gate).toEqual({
      useClass: OwnGate,
      leaseMs: 3_000,
      transactional: true,
      refusal: 'jsonrpc',
      handleToolsMenu: 'all',
      retention: { finishedMs: 10_000, idleHandleMs: undefined, intervalMs: 60_000, batchSize: 500 },
      deadlines: { pollMs: 1_000, batchSize: 100, concurrency: 4, maxAttempts: 5, retryMs: 1_000 },
      idempotency: { retentionMs: 3_600_000, sweepIntervalMs: 60_000 },
    });
    expect(resolveMcpOptions(grouped).http).toMatchObject({
      singleTenant: true,
      protocolEras: ['2025-11-25'],
      listCacheTtlMs: 1_000,
      attachmentId: 'local',
    });
    expect(resolveMcpOptions(grouped).sessions).toMatchObject({
      store: sessionStore,
      maxSessions: 50,
      maxPerAddress: 5,
      idleTtlMs: 60_000,
      clientAddress,
    });
  });

  it('fills every default, and keeps session defaults with HTTP off (stdio has a session too)', () => {
    const resolved = resolveMcpOptions({ name: 'a', version: '1', transports: { http: false, stdio: true } });
    expect(resolved.http).toBeNull();
    expect(resolved.stdio).toEqual({ attachmentId: 'local' });
    expect(resolved.gate).toMatchObject({
      useClass: WorkflowGate,
      leaseMs: 15_000,
      transactional: false,
      refusal: 'result',
      handleToolsMenu: 'used',
    });
    expect(resolved.sessions).toMatchObject({ maxSessions: 1000, maxPerAddress: 100, eventRetentionMs: 0, clientAddress: clientAddressOf });
    expect(resolved.discovery).toEqual({ allowRequestScoped: true, workflowResources: false });
    expect(resolved.telemetry).toEqual({
      enabled: true,
      recordArguments: false,
      recordResults: false,
      instanceDigestKey: expect.any(Buffer),
    });
    expect((resolved.telemetry.instanceDigestKey as Buffer).byteLength).toBe(32);
    expect(resolveMcpOptions({ name: 'a', version: '1' }).http).toMatchObject({
      path: '/mcp',
      stateless: false,
      direct: false,
      drainMs: 10_000,
    });
  });

  it('fills inputRequests: the waits, and a random 32-byte requestState key per resolution unless one is given', () => {
    const first = resolveMcpOptions({ name: 'a', version: '1' }).inputRequests;
    const second = resolveMcpOptions({ name: 'a', version: '1' }).inputRequests;
    expect(first).toMatchObject({ timeoutMs: 300_000, requestStateTtlMs: 600_000, maxRounds: 8, requestStateKeyGenerated: true });
    expect(first.requestStateKey.byteLength).toBe(32);
    expect(Buffer.from(first.requestStateKey).equals(Buffer.from(second.requestStateKey))).toBe(false);
    const given = resolveMcpOptions({ name: 'a', version: '1', inputRequests: { ...inputRequests, timeoutMs: 1_000 } }).inputRequests;
    expect(given).toMatchObject({ timeoutMs: 1_000, requestStateKeyGenerated: false });
    expect(Buffer.from(given.requestStateKey).toString()).toBe(inputRequests.requestStateKey);
  });

  it('refuses a requestState key shorter than 32 bytes, and waits out of range, naming the option', () => {
    expect(() => resolveMcpOptions({ name: 'a', version: '1', inputRequests: { requestStateKey: 'short' } })).toThrow(
      'McpModule: inputRequests.requestStateKey has 5 bytes; it needs at least 32',
    );
    expect(() => resolveMcpOptions({ name: 'a', version: '1', inputRequests: { timeoutMs: 0 } })).toThrow(
      'McpModule: inputRequests.timeoutMs must be a whole number of milliseconds from 1 to 2147483647; got 0.',
    );
    expect(() => resolveMcpOptions({ name: 'a', version: '1', inputRequests: { requestStateTtlMs: 10 } })).toThrow(
      'McpModule: inputRequests.requestStateTtlMs must be a whole number of milliseconds from 1000 to 3153600000000; got 10.',
    );
  });
});

describe('resolveMcpOptions telemetry', () => {
  it('keeps a digest key that is long enough, and refuses a shorter one naming the option', () => {
    const key = 'a-secret-of-32-characters-------';
    expect(resolveMcpOptions({ name: 'a', version: '1', telemetry: { instanceDigestKey: key } }).telemetry.instanceDigestKey).toBe(key);
    expect(() => resolveMcpOptions({ name: 'a', version: '1', telemetry: { instanceDigestKey: 'short' } })).toThrow(
      'McpModule: telemetry.instanceDigestKey has 5 bytes; give at least 16',
    );
    expect(() => resolveMcpOptions({ name: 'a', version: '1', telemetry: { instanceDigestKey: new Uint8Array(8) } })).toThrow(
      /has 8 bytes/,
    );
  });
});

describe('resolveMcpOptions stateCache', () => {
  const relay = { start: async () => undefined, publish: () => undefined, stop: async () => undefined };
  const shared = { ...new InMemoryMcpSessionStore() } as unknown as InMemoryMcpSessionStore;

  it('is off unless asked for, with its bounds filled in; `true` is the short form', () => {
    expect(resolveMcpOptions({ name: 'a', version: '1' }).stateCache).toEqual({
      enabled: false,
      maxInstances: 10_000,
      maxAgeMs: 60_000,
      sharedSessions: false,
    });
    expect(resolveMcpOptions({ name: 'a', version: '1', stateCache: true }).stateCache.enabled).toBe(true);
    expect(resolveMcpOptions({ name: 'a', version: '1', stateCache: { enabled: true, maxInstances: 5, maxAgeMs: 10 } }).stateCache).toEqual(
      { enabled: true, maxInstances: 5, maxAgeMs: 10, sharedSessions: false },
    );
  });

  it('checks session records for handles followed elsewhere only with a relay and a session store of the app', () => {
    const withStore = (sessions: McpSessionOptions | undefined) =>
      resolveMcpOptions({ name: 'a', version: '1', stateCache: true, transitionRelay: relay, transports: { http: { sessions } } })
        .stateCache.sharedSessions;
    expect(withStore(undefined)).toBe(false);
    expect(withStore({ store: new InMemoryMcpSessionStore() })).toBe(false);
    expect(withStore({ store: shared })).toBe(true);
  });

  it('refuses a bound that is not a whole number of at least 1, naming it', () => {
    expect(() => resolveMcpOptions({ name: 'a', version: '1', stateCache: { maxInstances: 0 } })).toThrow(
      'McpModule: stateCache.maxInstances must be a whole number from 1 to 10000000; got 0.',
    );
    expect(() => resolveMcpOptions({ name: 'a', version: '1', stateCache: { maxAgeMs: 1.5 } })).toThrow(/stateCache\.maxAgeMs/);
  });

  describe('numeric options: each is checked once, at startup, naming the option and the value', () => {
    const base = { name: 'a', version: '1' };
    /** Every numeric option of the module, and how to set it (to any value: the point is values the types refuse). */
    type Setter = [string, (value: unknown) => Record<string, unknown>];
    const options: Setter[] = [
      ['gate.leaseMs', (leaseMs) => ({ gate: { leaseMs } })],
      ['gate.retention.finishedMs', (finishedMs) => ({ gate: { retention: { finishedMs } } })],
      ['gate.retention.idleHandleMs', (idleHandleMs) => ({ gate: { retention: { idleHandleMs } } })],
      ['gate.retention.intervalMs', (intervalMs) => ({ gate: { retention: { intervalMs } } })],
      ['gate.retention.batchSize', (batchSize) => ({ gate: { retention: { batchSize } } })],
      ...(['pollMs', 'batchSize', 'concurrency', 'maxAttempts', 'retryMs'] as const).map((name): Setter => [
        `gate.deadlines.${name}`,
        (value) => ({ gate: { deadlines: { [name]: value } } }),
      ]),
      ...(['retentionMs', 'sweepIntervalMs'] as const).map((name): Setter => [
        `gate.idempotency.${name}`,
        (value) => ({ gate: { idempotency: { [name]: value } } }),
      ]),
      ['transports.http.drainMs', (drainMs) => ({ transports: { http: { drainMs } } })],
      ['transports.http.maxBodyBytes', (maxBodyBytes) => ({ transports: { http: { maxBodyBytes } } })],
      ['transports.http.listCacheTtlMs', (listCacheTtlMs) => ({ transports: { http: { listCacheTtlMs } } })],
      ...(
        [
          'idleTtlMs',
          'eventRetentionMs',
          'unusedTtlMs',
          'maxSessions',
          'maxPerAddress',
          'maxPerPrincipal',
          'maxFollowersPerInstance',
          'maxPendingRequests',
          'maxNewPerMinutePerClient',
        ] as const
      ).map((name): Setter => [`transports.http.sessions.${name}`, (value) => ({ transports: { http: { sessions: { [name]: value } } } })]),
      ['stateCache.maxInstances', (maxInstances) => ({ stateCache: { maxInstances } })],
      ['stateCache.maxAgeMs', (maxAgeMs) => ({ stateCache: { maxAgeMs } })],
      ...(['defaultTtlMs', 'maxTtlMs', 'pollIntervalMs', 'maxActivePerRequester', 'sweepIntervalMs', 'leaseMs'] as const).map(
        (name): Setter => [`tasks.${name}`, (value) => ({ tasks: { [name]: value } })],
      ),
      ['inputRequests.timeoutMs', (timeoutMs) => ({ inputRequests: { timeoutMs } })],
      ['inputRequests.requestStateTtlMs', (requestStateTtlMs) => ({ inputRequests: { requestStateTtlMs } })],
      ['inputRequests.maxRounds', (maxRounds) => ({ inputRequests: { maxRounds } })],
      ...(['pageSize', 'historyLimit', 'maxStreams', 'heartbeatMs', 'streamMaxMs', 'signInMaxAgeMs'] as const).map((name): Setter => [
        `console.${name}`,
        (value) => ({ console: { [name]: value } }),
      ]),
      ...(['clockToleranceMs', 'jwksCooldownMs', 'jwksCacheMaxAgeMs', 'jwksTimeoutMs', 'jwksMaxBytes'] as const).map((name): Setter => [
        `auth.jwt.${name}`,
        (value) => ({ auth: { jwt: { issuer: 'https://issuer.example', jwksUrl: 'https://issuer.example/jwks', [name]: value } } }),
      ]),
    ];

    /** The options whose documentation says `Infinity` turns their limit off. */
    const unlimited = new Set([
      'transports.http.sessions.maxPerAddress',
      'transports.http.sessions.maxPerPrincipal',
      'transports.http.sessions.maxNewPerMinutePerClient',
    ]);

    it.each(options)('%s: NaN, Infinity (unless it means no limit), a negative number, a fraction and a string fail', (name, set) => {
      for (const bad of [Number.NaN, ...(unlimited.has(name) ? [] : [Number.POSITIVE_INFINITY]), -1, 1.5, '100']) {
        expect(() => resolveMcpOptions({ ...base, ...set(bad) } as unknown as McpModuleOptions)).toThrow(
          new RegExp(
            `^McpModule: ${name.replace(/\./g, '\\.')} must be a whole number.* from \\d+ to \\d+(, or Infinity for no limit)?; got ${bad === '100' ? '"100"' : String(bad).replace('.', '\\.')}\\.$`,
          ),
        );
      }
    });

    it('gate.leaseMs: 0 fails, naming it (two calls would both run the handler on a lease that has already run out)', () => {
      expect(() => resolveMcpOptions({ ...base, gate: { leaseMs: 0 } })).toThrow(
        'McpModule: gate.leaseMs must be a whole number of milliseconds from 1 to 2147483647; got 0.',
      );
    });

    it('takes the values a deployment gives: 0 where it turns something off, Infinity where it means no limit', () => {
      const resolved = resolveMcpOptions({
        ...base,
        gate: { leaseMs: 1, retention: { finishedMs: 90 * 86_400_000 } },
        transports: {
          http: {
            drainMs: 0,
            sessions: { eventRetentionMs: 0, maxFollowersPerInstance: 0, maxPerAddress: Infinity, maxNewPerMinutePerClient: Infinity },
          },
        },
        console: { signInMaxAgeMs: 0 },
      });
      expect(resolved.gate.leaseMs).toBe(1);
      expect(resolved.gate.retention.finishedMs).toBe(90 * 86_400_000);
      expect(resolved.http?.drainMs).toBe(0);
      expect(resolved.sessions).toMatchObject({
        eventRetentionMs: 0,
        maxFollowersPerInstance: 0,
        maxPerAddress: Infinity,
        maxNewPerMinutePerClient: Infinity,
      });
      expect(resolved.console?.signInMaxAgeMs).toBe(0);
      expect(() => resolveMcpOptions({ ...base, transports: { http: { sessions: { maxPerAddress: 0 } } } })).toThrow(
        'McpModule: transports.http.sessions.maxPerAddress must be a whole number from 1 to 10000000, or Infinity for no limit; got 0.',
      );
    });
  });
});
