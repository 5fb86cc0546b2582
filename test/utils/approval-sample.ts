import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { connectBearerClient } from './bearer-client.js';
import { connectModernClient } from './modern-client.js';
import { startSample, type SampleProcess } from './sample-process.js';
import { TestIssuer } from './test-issuer.js';

/** How a caller reaches a sample: a 2025-11-25 session, stateless HTTP (a sample with `MCP_TRANSPORT=stateless`), or 2026-07-28 without a session. */
export type SampleEra = 'stateful' | 'stateless' | 'modern';

/** What `payment.status` answers, in the parts the approval suites read. */
export type PaymentStatus = {
  state: string;
  refundable: number;
  ledger: { kind: string; amount: number }[];
  pendingRefund?: { requestId: string; amount: number; requestedBy: string | null; requestedAt: string };
};

/** A refusal's `_meta`. */
export type SampleRefusal = { code: string; state?: string | null; waitingRequestId?: string };

/** The refusal of a tool result, if it is one. */
export const refusalOf = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as SampleRefusal | undefined;

/** The text of a tool result. */
export const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** The refund entries of a payment's ledger. */
export const refunds = (status: PaymentStatus) => status.ledger.filter((entry) => entry.kind === 'refund');

/** One caller of a sample, on one era. */
export interface SampleCaller {
  readonly era: SampleEra;
  /** The SDK v1 client (stateful and stateless eras), for requests beyond tool calls (tasks). */
  readonly client?: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  names(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The sample with `SAMPLE_AUTH=jwt` on one database (`url`): a stateful process (which serves
 * the 2026-07-28 era too) and a stateless one, tokens of one test issuer, and the workflow store
 * read as the library reads it (history, attempts); `stateless: false` leaves the stateless process
 * out. Its hooks are registered where it is called.
 */
export function jwtSamples(
  url: () => string,
  options: () => DataSourceOptions,
  env: Record<string, string> = {},
  { stateless = true } = {},
) {
  const bed = {
    issuer: undefined as unknown as TestIssuer,
    stateful: [] as SampleProcess[],
    stateless: undefined as unknown as SampleProcess,
    dataSource: undefined as unknown as DataSource,
    store: undefined as unknown as TypeOrmFsmStateStore,
    callers: [] as SampleCaller[],
  };

  beforeAll(async () => {
    bed.issuer = await TestIssuer.start();
    const common = {
      DATABASE_URL: url(),
      SAMPLE_AUTH: 'jwt',
      SAMPLE_JWT_ISSUER: bed.issuer.issuer,
      SAMPLE_JWT_JWKS_URL: bed.issuer.jwksUrl,
      ...env,
    };
    bed.stateful = [await startSample(common), await startSample(common)];
    if (stateless) bed.stateless = await startSample({ ...common, MCP_TRANSPORT: 'stateless' });
    bed.dataSource = await new DataSource(options()).initialize();
    bed.store = new TypeOrmFsmStateStore(bed.dataSource, { history: true, attempts: true });
  });

  afterEach(async () => {
    await Promise.all(bed.callers.map((caller) => caller.close().catch(() => undefined)));
    bed.callers = [];
  });

  afterAll(async () => {
    await Promise.all([...bed.stateful, bed.stateless].filter(Boolean).map((sample) => sample.stop()));
    await bed.dataSource?.destroy();
    await bed.issuer?.close();
  });

  /**
   * A caller with token claims `claims` (`sub`, `org`, `scope`, …) on `era`, on the stateful process
   * `on` (0 or 1) for the stateful and 2026-07-28 eras.
   */
  async function connect(era: SampleEra, claims: Record<string, unknown>, on = 0): Promise<SampleCaller> {
    const sample = era === 'stateless' ? bed.stateless : bed.stateful[on];
    const token = await bed.issuer.sign(claims, { audience: sample.url.href });
    const caller = era === 'modern' ? await modernCaller(sample, token) : await sessionCaller(era, sample, token);
    bed.callers.push(caller);
    return caller;
  }

  /** What the store holds of payment `paymentId`: its row, history and attempts. */
  async function records(paymentId: string) {
    const key = `payment:${paymentId}`;
    return { row: await bed.store.load(key), history: await bed.store.history(key), attempts: await bed.store.recentAttempts(key, 100) };
  }

  return { bed, connect, records };
}

async function sessionCaller(era: SampleEra, sample: SampleProcess, token: string): Promise<SampleCaller> {
  const agent = await connectBearerClient(sample.url, token);
  return { era, client: agent.client, call: agent.call, names: agent.names, close: agent.close };
}

async function modernCaller(sample: SampleProcess, token: string): Promise<SampleCaller> {
  const client: ModernClient = await connectModernClient(sample.url, { authorization: `Bearer ${token}` });
  return {
    era: 'modern',
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    names: async () => (await client.listTools()).tools.map((tool) => tool.name),
    close: () => client.close(),
  };
}

/** `payment.status` of `paymentId` through `agent`. */
export async function statusOf(agent: SampleCaller, paymentId: string): Promise<PaymentStatus> {
  const read = await agent.call('payment.status', { paymentId });
  expect(read.isError).toBeFalsy();
  return read.structuredContent as PaymentStatus;
}

/** A payment of `amount` EUR authorized and captured by `agent`. */
export async function capturedBy(agent: SampleCaller, amount: number): Promise<string> {
  const started = await agent.call('payment.authorize', { amount, currency: 'EUR' });
  expect(started.isError ? textOf(started) : undefined).toBeUndefined();
  const { paymentId } = started.structuredContent as { paymentId: string };
  expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
  return paymentId;
}

/** `agent` asks for a refund of `amount` (above the threshold): the request's id. */
export async function askRefund(agent: SampleCaller, paymentId: string, amount: number): Promise<string> {
  const asked = await agent.call('payment.refund', { paymentId, amount });
  expect(asked.structuredContent).toMatchObject({ status: 'waiting_for_approval', state: 'refund_pending' });
  return (asked.structuredContent as { requestId: string }).requestId;
}

/** The `payment.pending_refunds` list `agent` reads. */
export async function pendingOf(agent: SampleCaller): Promise<{ paymentId: string; requestId: string; amount: number }[]> {
  const listed = await agent.call('payment.pending_refunds', {});
  expect(listed.isError).toBeFalsy();
  return (listed.structuredContent as { pending: { paymentId: string; requestId: string; amount: number }[] }).pending;
}
