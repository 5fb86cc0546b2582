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
  type McpModuleOptions,
} from '../../lib/index.js';
import { invoiceMachine, paymentMachine } from '../fixtures/billing.machines.js';
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
  @StartWorkflow(paymentMachine, 'OPEN')
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

  it('@BindState under an @McpWorkflow machine that was not registered', async () => {
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

  it('@StartWorkflow firing an unknown event', async () => {
    expect(await bootstrapError([appWith([StartWithUnknownEventTools])])).toBe(
      'StartWithUnknownEventTools.open: @StartWorkflow fires event "OPEN", which no transition of machine "payment" accepts (events: AUTHORIZE, CAPTURE, VOID, REFUND).',
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

  it('a shutdown drain that is not a number of milliseconds', async () => {
    expect(await bootstrapError([appWith([], { transports: { http: { drainMs: -1 } } })])).toBe(
      'McpModule: transports.http.drainMs must be a number of milliseconds from 0 to 2147483647, got -1.',
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
        'TypeOrmFsmStateStore: table "mcp_fsm_state" is not ready for this version of nestjs-mcp-fsm (SqliteError: no such column: context). Run its migrations: CreateMcpFsmState1764460800000, then AddMcpFsmContext1764547200000 (createFsmStateMigration / createFsmContextMigration for custom table names).',
      );
    } finally {
      await dataSource.destroy();
    }
  });

  it('a valid configuration boots (the helpers above are not what fails)', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [appWith([SubmitTools, InvoiceStatusTools])] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(app.init()).resolves.toBe(app);
    await app.close();
  });
});
