import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { WorkflowTransitionBus } from '../../lib/relays/workflow-transition.bus.js';
import { McpServerFactory } from '../../lib/protocol/mcp-server.factory.js';
import type { McpSession } from '../../lib/sessions/mcp-session.js';
import { McpSessionRegistry } from '../../lib/sessions/mcp-session.registry.js';
import { ToolMenuService, type McpListKind } from '../../lib/sessions/tool-menu.service.js';
import { billingModule } from '../fixtures/billing.app.js';

/** The menu service, counting the sessions a transition is applied to. */
class CountingToolMenuService extends ToolMenuService {
  visited: McpSession[] = [];

  override applyTransition(session: McpSession, machine: string, storeKey: string, state: string | null): Promise<McpListKind[]> {
    this.visited.push(session);
    return super.applyTransition(session, machine, storeKey, state);
  }
}

describe('transitions reach only the sessions that follow the instance', () => {
  const LIVE_SESSIONS = 2_000;
  let app: INestApplication;
  let menu: CountingToolMenuService;
  let factory: McpServerFactory;
  let registry: McpSessionRegistry;
  let bus: WorkflowTransitionBus;
  let sessions: McpSession[];

  const payment = (storeKey: string) => ({ machine: 'payment', storeKey, scope: 'handle' as const });
  const publish = (machine: string, storeKey: string, state: string | null, origin?: McpSession) => {
    menu.visited = [];
    bus.publish({ machine, storeKey, state, origin });
    return menu.visited;
  };

  // Built once: an SDK server per session makes 2,000 of them cost half a second. Each case
  // uses sessions and instances of its own.
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [billingModule({ transports: { http: false } })] })
      .overrideProvider(ToolMenuService)
      .useClass(CountingToolMenuService)
      .compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    menu = app.get(ToolMenuService, { strict: false }) as CountingToolMenuService;
    factory = app.get(McpServerFactory, { strict: false });
    registry = app.get(McpSessionRegistry, { strict: false });
    bus = app.get(WorkflowTransitionBus, { strict: false });
    sessions = Array.from({ length: LIVE_SESSIONS }, (_, i) => {
      const id = `s${i}`;
      const session = factory.createSession('stateful', id, { scope: 'session', id });
      registry.add(id, session, async () => undefined);
      return session;
    });
  });

  afterAll(() => app.close());

  it(`visits the followers of a handle, not the ${LIVE_SESSIONS} live sessions`, async () => {
    const [owner, watcher, bystander] = sessions;
    await menu.observe(owner, payment('payment:p1'), 'authorized');
    await menu.observe(watcher, payment('payment:p1'), 'authorized');
    await menu.observe(bystander, payment('payment:p2'), 'authorized');
    expect(publish('payment', 'payment:p1', 'captured', owner)).toEqual([watcher]);
    expect(watcher.knownStates.get('payment:p1')).toBe('captured');
    expect(publish('payment', 'payment:p1', 'refunded')).toEqual([owner, watcher]);
    expect(menu.followersOf('payment:p1').size).toBe(0);
    expect(publish('payment', 'payment:p1', null)).toEqual([]);
  });

  it('visits only the session that owns a session-keyed instance', () => {
    const session = sessions[1234];
    expect(publish('invoice', session.sessionStoreKey('invoice')!, 'review')).toEqual([session]);
  });

  it('stops following, in the index too, a handle that tools/list finds gone', async () => {
    const session = sessions[10];
    await menu.observe(session, payment('payment:gone'), 'authorized');
    expect([...menu.followersOf('payment:gone')]).toEqual([session]);
    await menu.tools(session);
    expect(session.handles.has('payment:gone')).toBe(false);
    expect(menu.followersOf('payment:gone').size).toBe(0);
  });

  it('keeps stateless connections and closed sessions out of the index', async () => {
    const stateless = factory.createSession('stateless');
    await menu.observe(stateless, payment('payment:p3'), 'authorized');
    expect(stateless.handles.has('payment:p3')).toBe(true);
    const closing = sessions[20];
    await menu.observe(closing, payment('payment:p3'), 'authorized');
    registry.remove('s20');
    expect(menu.followersOf('payment:p3').size).toBe(0);
    expect(publish('payment', 'payment:p3', 'captured')).toEqual([]);
    expect(publish('invoice', closing.sessionStoreKey('invoice')!, 'review')).toEqual([]);
  });

  it('answers an unchanged observation without a new menu', async () => {
    const session = sessions[30];
    expect(await menu.observe(session, payment('payment:p4'), 'authorized')).toEqual(['tools']);
    const shown = session.lastMenu;
    expect(await menu.observe(session, payment('payment:p4'), 'authorized')).toEqual([]);
    expect(session.lastMenu).toBe(shown);
    expect(await menu.observe(session, payment('payment:p4'), 'captured')).toEqual(['tools']);
  });
});
