import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { performance } from 'node:perf_hooks';
import { closeClient, openClient, type BenchClient } from './bench.load.js';
import { MIXED_OPERATIONS, type MixedOperation, type MixedReply, type MixedRequest } from './bench-mixed.protocol.js';

const AMOUNT = 12.34;

/** What a session whose invoice is in draft is shown, with or without a captured payment. */
const menu = (refundable: boolean) => [
  'invoice.submit',
  'invoice.status',
  'payment.authorize',
  ...(refundable ? ['payment.refund'] : []),
  'payment.status',
];

/** One SDK session on one server, kept for the whole run: it follows every payment it made. */
interface KeptSession {
  session: BenchClient;
  /** Whether one of its payments was captured (its menu then offers refunds). */
  refundable: boolean;
}

const call = async ({ client }: BenchClient, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return result.isError ? undefined : result.structuredContent;
};

/** One iteration, each answer checked; `false` at the first wrong one. */
async function iteration(kept: KeptSession, timed: <T>(operation: MixedOperation, work: () => Promise<T>) => Promise<T>): Promise<boolean> {
  const { session } = kept;
  const expected = menu(kept.refundable);
  const { tools } = await timed('tools/list', () => session.client.listTools());
  if (tools.length !== expected.length || tools.some((tool, index) => tool.name !== expected[index])) return false;
  const started = await timed('payment.authorize', () => call(session, 'payment.authorize', { amount: AMOUNT, currency: 'EUR' }));
  const paymentId = started?.paymentId;
  if (typeof paymentId !== 'string') return false;
  const found = (await timed('payment.status', () => call(session, 'payment.status', { paymentId }))) as
    { state?: string; ledger?: unknown[] } | undefined;
  if (found?.state !== 'authorized' || found.ledger?.length !== 1) return false;
  const captured = await timed('payment.capture', () => call(session, 'payment.capture', { paymentId }));
  if (captured?.captured !== AMOUNT) return false;
  kept.refundable = true;
  return true;
}

/**
 * A client process of the mixed workload: one official SDK client per server (a session kept
 * for the whole run, so it follows more payments with every round), driven by the runner over
 * IPC. Each round times every request and reports this process's CPU.
 */
function main(): void {
  const sessions = new Map<string, KeptSession>();
  const send = (reply: MixedReply) => process.send!(reply);
  process.on('disconnect', () => process.exit(0));
  process.on('message', (request: MixedRequest) => {
    void (async (): Promise<MixedReply | undefined> => {
      switch (request.cmd) {
        case 'open':
          for (const [side, url] of Object.entries(request.urls)) {
            sessions.set(side, { session: await openClient(new URL(url)), refundable: false });
          }
          return { opened: true };
        case 'round': {
          const kept = sessions.get(request.side)!;
          const latenciesMs = Object.fromEntries(MIXED_OPERATIONS.map((operation) => [operation, [] as number[]])) as Record<
            MixedOperation,
            number[]
          >;
          const timed = async <T>(operation: MixedOperation, work: () => Promise<T>): Promise<T> => {
            const before = performance.now();
            try {
              return await work();
            } finally {
              latenciesMs[operation].push(performance.now() - before);
            }
          };
          const cpu = process.cpuUsage();
          let errors = 0;
          for (let index = 0; index < request.iterations; index++) {
            if (!(await iteration(kept, timed).catch(() => false))) errors++;
          }
          const used = process.cpuUsage(cpu);
          return { latenciesMs, errors, cpuUs: used.user + used.system };
        }
        case 'close':
          await Promise.allSettled([...sessions.values()].map(({ session }) => closeClient(session)));
          setImmediate(() => process.exit(0));
          return undefined;
      }
    })()
      .catch((error: unknown) => ({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }))
      .then((reply) => reply && send(reply));
  });
}

main();
