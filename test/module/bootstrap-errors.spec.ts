import { Injectable, Module, type DynamicModule, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { CreateMcpFsmState1764460800000, TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import {
  BindState,
  defineMachine,
  McpModule,
  McpTool,
  McpWorkflow,
  StartWorkflow,
  McpStartWorkflow,
  type WorkflowSnapshot,
  type FsmStateStore,
  type McpModuleOptions,
} from '../../lib/index.js';
import { flatPaymentMachine, invoiceMachine, paymentMachine } from '../fixtures/billing.machines.js';
import { RecordingLogger } from '../utils/recording-logger.js';
import { bootstrapError } from '../utils/test-app.js';

function appWith(providers: Type[], options: Partial<McpModuleOptions> = {}): DynamicModule {
  @Module({})
  class BrokenAppModule {}
  return {
    module: BrokenAppModule,
    imports: [
      McpModule.forRoot({
        name: 'broken',
        version: '1.0.0',
        machines: [invoiceMachine, paymentMachine],
        transports: { http: false },
        ...options,
      }),
    ],
    providers,
  };
}

/** Compiles the module (which succeeds), then initialises the app and returns why that failed. */

@Injectable()
@McpWorkflow(invoiceMachine)
class InvoiceStatusTools {
  @McpTool({ name: 'invoice.status', description: 'Show the invoice' })
  status() {
    return 'ok';
  }
}

@Injectable()
@McpWorkflow(invoiceMachine)
class InvoiceReportTools {
  @McpTool({ name: 'invoice.status', description: 'Report on the invoice' })
  report() {
    return 'ok';
  }
}

@Injectable()
class ShippingTools {
  @McpTool({ name: 'shipping.dispatch', description: 'Dispatch the parcel' })
  @BindState('packed', 'DISPATCH', { machine: 'shipping' })
  dispatch() {
    return 'ok';
  }
}

const shippingMachine = defineMachine({
  id: 'shipping',
  initial: 'packed',
  states: { packed: { on: { DISPATCH: 'sent' } }, sent: { type: 'final' } },
});

@Injectable()
@McpWorkflow(shippingMachine)
class UnregisteredWorkflowTools {
  @McpTool({ name: 'shipping.send', description: 'Send the parcel' })
  @BindState('packed', 'DISPATCH')
  send() {
    return 'ok';
  }
}

@Injectable()
@McpWorkflow(invoiceMachine)
class ArchiveTools {
  @McpTool({ name: 'invoice.archive', description: 'Archive the invoice' })
  @BindState('archived')
  archive() {
    return 'ok';
  }
}

@Injectable()
@McpWorkflow(invoiceMachine)
class SendTools {
  @McpTool({ name: 'invoice.send', description: 'Send the invoice' })
  @BindState('draft', 'SEND')
  send() {
    return 'ok';
  }
}

@Injectable()
class StartWithUnknownEventTools {
  @McpTool({ name: 'payment.open', description: 'Open a payment' })
  // @ts-expect-error -- the compiler refuses the event too; bootstrap must, for a machine typed loosely.
  @McpStartWorkflow(paymentMachine, 'OPEN')
  open() {
    return 'ok';
  }
}

@Injectable()
class CaptureAtStartTools {
  @McpTool({ name: 'payment.open', description: 'Open a payment' })
  // Compiles: the type of an XState machine does not say which state accepts which event.
  @McpStartWorkflow(paymentMachine, 'CAPTURE')
  open() {
    return 'ok';
  }
}

@Injectable()
class RefundAtStartTools {
  @McpTool({ name: 'payment.open', description: 'Open a payment' })
  @StartWorkflow('payment', 'REFUND')
  open() {
    return 'ok';
  }
}

@Injectable()
@McpWorkflow(invoiceMachine)
class NewInvoiceTools {
  @McpTool({ name: 'invoice.create', description: 'Create an invoice' })
  @StartWorkflow()
  create() {
    return 'ok';
  }
}

@Injectable()
class LooseTools {
  @McpTool({ name: 'loose.step', description: 'A step of some workflow' })
  @BindState('draft', 'SUBMIT')
  step() {
    return 'ok';
  }
}

@Injectable()
@McpWorkflow(invoiceMachine)
class SubmitTools {
  @McpTool({ name: 'invoice.submit', description: 'Submit the invoice' })
  @BindState('draft', 'SUBMIT')
  submit() {
    return 'ok';
  }
}

@Injectable()
@McpWorkflow(invoiceMachine)
class TransactionalSubmitTools {
  @McpTool({ name: 'invoice.submit', description: 'Submit the invoice' })
  @BindState('draft', 'SUBMIT', { transactional: true })
  submit() {
    return 'ok';
  }
}

@Injectable()
class SearchTools {
  @McpTool({ name: 'invoice.search', description: 'Search invoices', inputSchema: z.string() })
  search() {
    return 'ok';
  }
}

@Injectable()
@McpWorkflow(invoiceMachine)
class EarlyApproveTools {
  @McpTool({ name: 'invoice.approve', description: 'Approve the invoice' })
  @BindState(['draft', 'approved'], 'APPROVE')
  approve() {
    return 'ok';
  }
}

@Injectable()
@McpWorkflow(paymentMachine)
class EarlyRefundTools {
  @McpTool({ name: 'payment.refund', description: 'Refund the payment' })
  @BindState('authorized', 'REFUND')
  refund() {
    return 'ok';
  }
}

@Injectable()
class SpacedNameTools {
  @McpTool({ name: 'invoice/send now', description: 'Send the invoice' })
  send() {
    return 'ok';
  }
}

@Injectable()
@McpWorkflow(paymentMachine)
class PaymentStartTools {
  @McpTool({ name: 'payment.authorize', description: 'Authorize a payment' })
  @StartWorkflow()
  authorize() {
    return 'ok';
  }
}

/** A custom store that keeps only the state and the time, as a hand-written `{ load, save }` might. */
class StateOnlyStore implements FsmStateStore {
  private readonly rows = new Map<string, { state: string; updatedAt: string }>();

  async load(key: string): Promise<WorkflowSnapshot | undefined> {
    return this.rows.get(key);
  }

  async save(key: string, { state, updatedAt }: WorkflowSnapshot): Promise<void> {
    this.rows.set(key, { state, updatedAt });
  }
}

/** A custom store that keeps the whole snapshot. */
class WholeSnapshotStore implements FsmStateStore {
  private readonly rows = new Map<string, string>();

  async load(key: string): Promise<WorkflowSnapshot | undefined> {
    const row = this.rows.get(key);
    return row === undefined ? undefined : (JSON.parse(row) as WorkflowSnapshot);
  }

  async save(key: string, snapshot: WorkflowSnapshot): Promise<void> {
    this.rows.set(key, JSON.stringify(snapshot));
  }
}

/** Boots an app from `imports` and returns what it logged while starting. */
async function startupLogs(imports: DynamicModule[]): Promise<RecordingLogger> {
  const logs = new RecordingLogger();
  const moduleRef = await Test.createTestingModule({ imports }).setLogger(logs).compile();
  const app = moduleRef.createNestApplication({ logger: logs });
  await app.init();
  await app.close();
  return logs;
}

describe('bootstrap errors name the class, the method and the decorator', () => {
  it('duplicate tool names', async () => {
    expect(await bootstrapError([appWith([InvoiceStatusTools, InvoiceReportTools])])).toBe(
      'Tool name "invoice.status" is declared twice: by @McpTool on InvoiceStatusTools.status and on InvoiceReportTools.report. Tool names must be unique.',
    );
  });

  it('@BindState naming an unknown machine', async () => {
    expect(await bootstrapError([appWith([ShippingTools])])).toBe(
      'ShippingTools.dispatch: @BindState names machine "shipping", which is not in McpModule\'s "machines" (known: invoice, payment).',
    );
  });

  it('@McpBindState under an @McpWorkflow machine that was not registered', async () => {
    expect(await bootstrapError([appWith([UnregisteredWorkflowTools])])).toBe(
      'UnregisteredWorkflowTools.send: @McpWorkflow names machine "shipping", which is not in McpModule\'s "machines" (known: invoice, payment).',
    );
  });

  it('@BindState naming an unknown state', async () => {
    expect(await bootstrapError([appWith([ArchiveTools])])).toBe(
      'ArchiveTools.archive: @BindState names state "archived", which machine "invoice" does not have (states: draft, review, approved, discharged).',
    );
  });

  it('@BindState firing an unknown event', async () => {
    expect(await bootstrapError([appWith([SendTools])])).toBe(
      'SendTools.send: @BindState fires event "SEND", which no transition of machine "invoice" accepts (events: SUBMIT, APPROVE, REJECT, DISCHARGE).',
    );
  });

  it('@McpStartWorkflow firing an unknown event', async () => {
    expect(await bootstrapError([appWith([StartWithUnknownEventTools])])).toBe(
      'StartWithUnknownEventTools.open: @McpStartWorkflow fires event "OPEN", which no transition of machine "payment" accepts (events: AUTHORIZE, CAPTURE, VOID, REFUND).',
    );
  });

  it('@McpStartWorkflow firing an event the initial state does not accept (an XState machine, which tsc cannot check)', async () => {
    expect(await bootstrapError([appWith([CaptureAtStartTools])])).toBe(
      'CaptureAtStartTools.open: @McpStartWorkflow fires event "CAPTURE" when it starts an instance, but machine "payment" starts in state "pending", which does not accept it (it accepts AUTHORIZE); every call would be refused. Fire an event of "pending", or none.',
    );
  });

  it('@StartWorkflow firing an event the initial state does not accept (the table engine)', async () => {
    expect(await bootstrapError([appWith([RefundAtStartTools], { machines: [invoiceMachine, flatPaymentMachine], engine: 'table' })])).toBe(
      'RefundAtStartTools.open: @StartWorkflow fires event "REFUND" when it starts an instance, but machine "payment" starts in state "pending", which does not accept it (it accepts AUTHORIZE); every call would be refused. Fire an event of "pending", or none.',
    );
  });

  it('@BindState firing an event none of its states accepts', async () => {
    expect(await bootstrapError([appWith([EarlyApproveTools])])).toBe(
      'EarlyApproveTools.approve: @BindState fires event "APPROVE" from states draft, approved, but machine "invoice" accepts it only in review; the tool would be listed there and refuse every call. Bind it to the states that accept "APPROVE".',
    );
  });

  it('@BindState firing a guarded event from a state that does not accept it', async () => {
    expect(await bootstrapError([appWith([EarlyRefundTools])])).toBe(
      'EarlyRefundTools.refund: @BindState fires event "REFUND" from state authorized, but machine "payment" accepts it only in captured, partially_refunded; the tool would be listed there and refuse every call. Bind it to the states that accept "REFUND".',
    );
  });

  it('a tool name MCP does not allow', async () => {
    expect(await bootstrapError([appWith([SpacedNameTools])])).toBe(
      'SpacedNameTools.send: @McpTool name "invoice/send now" is not a valid MCP tool name: use 1 to 128 letters, digits, "_", "." and "-" (no spaces or slashes).',
    );
  });

  it('TypeOrmFsmStateStore without a DataSource (a forgotten inject)', () => {
    expect(() => new TypeOrmFsmStateStore(undefined as unknown as DataSource)).toThrow(
      'TypeOrmFsmStateStore needs a TypeORM DataSource, got undefined. Inject it: McpModule.forRootAsync({ inject: [DataSource], useFactory: (dataSource: DataSource) => ({ ... }) }), and pass dataSource to new TypeOrmFsmStateStore(dataSource).',
    );
  });

  it('a { load, save } store that loses context and owner', async () => {
    expect(await bootstrapError([appWith([], { store: new StateOnlyStore() })])).toBe(
      'StateOnlyStore did not give back what it saved: context, owner were lost in a round trip at startup. A store keeps the whole snapshot ({ state, context, updatedAt, owner }) and returns it from load; otherwise instances lose their context, and handle-keyed ones their owner (anyone who knows the handle could then call).',
    );
  });

  it('a { load, save } store that keeps the whole snapshot boots', async () => {
    const logs = await startupLogs([appWith([SubmitTools], { store: new WholeSnapshotStore(), machines: [invoiceMachine] })]);
    expect(logs.matching('error', /./)).toEqual([]);
  });

  it('a { load, save } store with a machine that has deadlines (it keeps no timers)', async () => {
    expect(await bootstrapError([appWith([SubmitTools], { store: new WholeSnapshotStore() })])).toBe(
      'McpModule: machine "payment" has deadlines ("after" transitions, or an @McpApproval with expiresAfterMs), and the store WholeSnapshotStore keeps no timers (it implements no FsmTimerStore). Use InMemoryFsmStateStore or TypeOrmFsmStateStore.',
    );
  });

  it('@StartWorkflow on a session-keyed machine', async () => {
    expect(await bootstrapError([appWith([NewInvoiceTools])])).toBe(
      'NewInvoiceTools.create: @StartWorkflow needs a handle-keyed machine, but "invoice" has no stateHandleKey; use defineMachine(config, { stateHandleKey: \'...\' }).',
    );
  });

  it('@BindState without any machine', async () => {
    expect(await bootstrapError([appWith([LooseTools])])).toBe(
      'LooseTools.step: @BindState has no machine; pass { machine } or put @McpWorkflow(machine) on the class.',
    );
  });

  it('gate.transactional: true (module option) with the in-memory store', async () => {
    expect(await bootstrapError([appWith([SubmitTools], { gate: { transactional: true } })])).toBe(
      'SubmitTools.submit: @BindState runs in transactional mode, but the store (InMemoryFsmStateStore) does not support transactions; use TypeOrmFsmStateStore or turn "transactional" off.',
    );
  });

  it('transactional: true (@BindState option) with the in-memory store', async () => {
    expect(await bootstrapError([appWith([TransactionalSubmitTools])])).toBe(
      'TransactionalSubmitTools.submit: @BindState runs in transactional mode, but the store (InMemoryFsmStateStore) does not support transactions; use TypeOrmFsmStateStore or turn "transactional" off.',
    );
  });

  it('an inputSchema that is not a zod object', async () => {
    expect(await bootstrapError([appWith([SearchTools])])).toBe(
      'SearchTools.search: @McpTool inputSchema must be a zod object schema (z.object({...})).',
    );
  });

  it('two machines with the same id', async () => {
    const otherInvoice = defineMachine({ id: 'invoice', initial: 'open', states: { open: {} } });
    expect(await bootstrapError([appWith([], { machines: [invoiceMachine, otherInvoice] })])).toBe(
      'McpModule: two machines have the id "invoice"; machine ids must be unique.',
    );
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('a lease of %p ms (two calls would both run the handler)', async (leaseMs) => {
    expect(await bootstrapError([appWith([], { gate: { leaseMs } })])).toBe(
      `McpModule: gate.leaseMs must be a whole number of milliseconds from 1 to 2147483647; got ${leaseMs}.`,
    );
  });

  it('a shutdown drain that is not a number of milliseconds', async () => {
    expect(await bootstrapError([appWith([], { transports: { http: { drainMs: -1 } } })])).toBe(
      'McpModule: transports.http.drainMs must be a whole number of milliseconds from 0 to 2147483647; got -1.',
    );
  });

  it('a TypeORM store whose table lacks the 0.2 migration (an upgrade that forgot to run it)', async () => {
    const dataSource = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      migrations: [CreateMcpFsmState1764460800000],
    }).initialize();
    try {
      await dataSource.runMigrations();
      expect(await bootstrapError([appWith([], { store: new TypeOrmFsmStateStore(dataSource) })])).toBe(
        'TypeOrmFsmStateStore: table "mcp_fsm_state" is not ready for this version of nestjs-mcp-fsm (SqliteError: no such column: context). Run its migrations: CreateMcpFsmState1764460800000, then AddMcpFsmContext1764547200000, AddMcpFsmTeam1766016000000 and AddMcpFsmApprovals1766102400000 (createWorkflowStateMigration / createWorkflowContextMigration / createWorkflowTeamMigration / createWorkflowApprovalMigration for custom table names).',
      );
    } finally {
      await dataSource.destroy();
    }
  });

  it('logs which engine runs each machine, and warns of a handle-keyed machine nothing can start', async () => {
    const logs = await startupLogs([appWith([SubmitTools], { machines: [invoiceMachine, paymentMachine] })]);
    expect(logs.matching('log', /^Server "broken": machine/)).toEqual([
      'Server "broken": machine "invoice" runs on XState.',
      'Server "broken": machine "payment" runs on XState.',
    ]);
    expect(logs.matching('warn', /./)).toEqual([
      'Server "broken": machine "payment" is handle-keyed (stateHandleKey "paymentId"), but no tool has @McpStartWorkflow for it, so no client can create an instance and its bound tools are never listed; add a start tool.',
    ]);

    const table = await startupLogs([
      appWith([SubmitTools, PaymentStartTools], { engine: 'table', machines: [invoiceMachine, flatPaymentMachine] }),
    ]);
    expect(table.matching('log', /^Server "broken": machine/)).toEqual([
      'Server "broken": machine "invoice" runs on the built-in table engine (flat machines; install xstate for nested and parallel states, guards and context).',
      'Server "broken": machine "payment" runs on the built-in table engine (flat machines; install xstate for nested and parallel states, guards and context).',
    ]);
    expect(table.matching('warn', /./)).toEqual([]);
  });

  it('a valid configuration boots (the helpers above are not what fails)', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [appWith([SubmitTools, InvoiceStatusTools])] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(app.init()).resolves.toBe(app);
    await app.close();
  });
});
