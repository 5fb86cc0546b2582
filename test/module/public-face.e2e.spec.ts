import { Inject, Injectable, Module, type DynamicModule, type INestApplication, type InjectionToken, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  defineMachine,
  FsmStateStore,
  InMemoryFsmStateStore,
  McpApprovalsService,
  McpAuthenticator,
  McpHealthService,
  McpModule,
  McpSessionStore,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
  McpWorkflowService,
  type McpModuleOptions,
} from '../../lib/index.js';
import { McpMachineRegistry, McpToolRegistry, McpSessionRegistry, WorkflowGate, WorkflowTransitionBus } from '../../lib/extend.js';
import { WorkflowDeadlineScheduler } from '../../lib/deadlines/workflow-deadline.scheduler.js';
import { WorkflowDeadlines } from '../../lib/deadlines/workflow-deadlines.js';
import { WorkflowAttemptRecorder } from '../../lib/gating/workflow-attempt.recorder.js';
import { WorkflowReceiptSweeper } from '../../lib/gating/workflow-receipt.sweeper.js';
import { WorkflowRetentionSweeper } from '../../lib/gating/workflow-retention.sweeper.js';
import { McpServerFactory } from '../../lib/protocol/mcp-server.factory.js';
import { TaskCallResumer } from '../../lib/protocol/task-call.resumer.js';
import { ToolCallHandler } from '../../lib/protocol/tool-call.handler.js';
import { FsmStoreAdapter } from '../../lib/stores/fsm-store.adapter.js';
import { McpTaskStore } from '../../lib/stores/mcp-task-store.interface.js';
import { McpTaskSweeper } from '../../lib/tasks/mcp-task.sweeper.js';
import { McpTasks } from '../../lib/tasks/mcp-tasks.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { expiryModule } from '../fixtures/transfer-expiry.app.js';

/** A flat machine: no `after`, nothing that waits. */
const noteMachine = defineMachine(
  { id: 'note', initial: 'draft', states: { draft: { on: { PUBLISH: 'published' } }, published: {} } },
  { stateHandleKey: 'noteId' },
);

@Injectable()
@McpWorkflow(noteMachine)
class NoteTools {
  @McpTool({ name: 'note.create', description: 'Create a note' })
  @McpStartWorkflow(noteMachine)
  create() {
    return { created: true };
  }
}

/** The McpModule of the note app: no task tool, no `@McpApproval`, no `after`, no retention, a store without attempts. */
const plain = { name: 'notes', version: '1.0.0', machines: [noteMachine], transports: { http: false } } satisfies McpModuleOptions;

/** A provider of the app's that injects every service the README and docs name as injectable. */
@Injectable()
class Documented {
  constructor(
    readonly workflows: McpWorkflowService,
    readonly approvals: McpApprovalsService,
    readonly health: McpHealthService,
    readonly authenticator: McpAuthenticator,
    @Inject(FsmStateStore) readonly store: FsmStateStore,
  ) {}
}

/** Boots an app of `mcp` with `providers` (the note tools by default); a failed bootstrap rejects with Nest's error. */
async function boot(mcp: DynamicModule, providers: Type[] = [NoteTools]): Promise<INestApplication> {
  @Module({ imports: [mcp], providers })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

/** A provider of the app's that injects `token`, named after it. */
function injecting(token: InjectionToken): Type {
  @Injectable()
  class Probe {
    constructor(@Inject(token) readonly value: unknown) {}
  }
  return Probe;
}

/** What the app's injector holds under `type` anywhere: `'absent'` without a provider, `'null'` for one never built. */
function built(app: INestApplication, type: InjectionToken): 'built' | 'null' | 'absent' {
  try {
    return app.get(type, { strict: false }) === null ? 'null' : 'built';
  } catch {
    return 'absent';
  }
}

describe("McpModule's public face", () => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it.each([
    ['forRoot', () => McpModule.forRoot(plain)],
    ['forRootAsync', () => McpModule.forRootAsync({ useFactory: () => plain })],
  ])('%s: a provider of the app injects each documented service, the core instance itself', async (_, mcp) => {
    app = await boot(mcp(), [NoteTools, Documented]);
    const injected = app.get(Documented);
    expect(injected.workflows).toBeInstanceOf(McpWorkflowService);
    expect(injected.approvals).toBeInstanceOf(McpApprovalsService);
    expect(injected.health).toBeInstanceOf(McpHealthService);
    expect(injected.authenticator).toBeInstanceOf(McpAuthenticator);
    expect(injected.store).toBeInstanceOf(InMemoryFsmStateStore);
    expect(injected.store).toBe(app.get(FsmStateStore, { strict: false }));
    expect(await injected.health.checkStore()).toMatchObject({ up: true });
  });

  const internals: [string, InjectionToken][] = [
    ['ToolCallHandler', ToolCallHandler],
    ['FsmStoreAdapter', FsmStoreAdapter],
    ['McpServerFactory', McpServerFactory],
    ['WorkflowDeadlineScheduler', WorkflowDeadlineScheduler],
    ['WorkflowGate', WorkflowGate],
    ['McpToolRegistry', McpToolRegistry],
    ['McpMachineRegistry', McpMachineRegistry],
    ['McpSessionRegistry', McpSessionRegistry],
    ['WorkflowTransitionBus', WorkflowTransitionBus],
    ['McpTasks', McpTasks],
    ['McpSessionStore', McpSessionStore],
    ['McpTaskStore', McpTaskStore],
  ];

  it.each(internals)(
    "a provider of the app that injects the internal %s fails the bootstrap with Nest's own error",
    async (name, token) => {
      const shown = typeof token === 'symbol' ? token.toString() : name;
      await expect(boot(McpModule.forRoot(plain), [NoteTools, injecting(token)])).rejects.toThrow(
        `Nest can't resolve dependencies of the Probe (?). Please make sure that the argument ${shown} at index [0] is available in the AppModule module.`,
      );
    },
  );

  const optional = {
    McpTaskSweeper,
    TaskCallResumer,
    WorkflowDeadlines,
    WorkflowDeadlineScheduler,
    WorkflowAttemptRecorder,
    WorkflowRetentionSweeper,
    WorkflowReceiptSweeper,
  };
  const states = (target: INestApplication) =>
    Object.fromEntries(Object.entries(optional).map(([name, type]) => [name, built(target, type)]));

  it.each([
    ['forRoot', (options: McpModuleOptions) => McpModule.forRoot(options)],
    ['forRootAsync', (options: McpModuleOptions) => McpModule.forRootAsync({ useFactory: async () => options })],
  ])('%s: builds no task, deadline, attempt or retention provider for an app that uses none, and serves', async (_, mcp) => {
    app = await boot(mcp(plain));
    expect(states(app)).toEqual({
      McpTaskSweeper: 'null',
      TaskCallResumer: 'null',
      WorkflowDeadlines: 'null',
      WorkflowDeadlineScheduler: 'null',
      WorkflowAttemptRecorder: 'null',
      WorkflowRetentionSweeper: 'null',
      // The in-memory store keeps the receipts of keyed calls: they expire, and are swept.
      WorkflowReceiptSweeper: 'built',
    });
    expect(app.get(McpHealthService, { strict: false }).checkDeadlines()).toMatchObject({ active: false, up: true });
    const client = await createMcpTestClient(app);
    expect(await client.callTool({ name: 'note.create', arguments: {} })).toMatchObject({ structuredContent: { created: true } });
    await client.close();
  });

  it('builds each of them for an app that uses it: a task tool, an expiring approval, after, attempts and retention', async () => {
    const store = new InMemoryFsmStateStore({ attempts: true });
    app = await boot(expiryModule(store, { gate: { retention: { finishedMs: 60_000 } } }), []);
    expect(states(app)).toEqual(Object.fromEntries(Object.keys(optional).map((name) => [name, 'built'])));
    expect(app.get(McpHealthService, { strict: false }).checkDeadlines()).toMatchObject({ active: true });
  });
});
