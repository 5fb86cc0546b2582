import {
  createParamDecorator,
  Injectable,
  Module,
  UseGuards,
  type CanActivate,
  type DynamicModule,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { of, timer, map } from 'rxjs';
import { z } from 'zod';
import { defineMachine, McpArgs, BindState, McpContext, McpModule, McpTool, McpWorkflow, type McpToolContext } from '../../lib/index.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** A session-keyed lamp: off until ON, on until OFF. */
const lampMachine = defineMachine({
  id: 'lamp',
  initial: 'off',
  states: { off: { on: { ON: 'on' } }, on: { on: { OFF: 'off' } } },
});

/** Refuses every call: where it applies, no handler runs. */
class ClosedGuard implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

/** A parameter only Nest's pipeline can give: the tool name the context type `mcp` carries, upper-cased. */
const ShoutedToolName = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const call = context.getArgByIndex<{ tool: { name: string } }>(2);
  return `${context.getType()}:${call.tool.name.toUpperCase()}`;
});

const labelInput = z.object({ label: z.string() });

/** What each method was called with. */
const received: unknown[][] = [];

@Injectable()
@McpWorkflow(lampMachine)
class LampTools {
  @McpTool({ name: 'lamp.on', description: 'Switch it on (an Observable result)', inputSchema: labelInput })
  @BindState('off', 'ON')
  on(@McpArgs('label') label: string, @McpContext() ctx: McpToolContext) {
    // eslint-disable-next-line prefer-rest-params -- what the method was really called with
    received.push([...arguments]);
    return timer(5).pipe(map(() => ({ label, from: ctx.state })));
  }

  @McpTool({ name: 'lamp.status', description: 'Show it (an Observable of several values)' })
  status(@McpContext() ctx: McpToolContext) {
    return of({ state: 'first' }, { state: ctx.state });
  }

  @McpTool({ name: 'lamp.name', description: 'A custom parameter decorator', inputSchema: z.object({ extra: z.number() }) })
  name(@ShoutedToolName() shouted: string, @McpArgs() args: Record<string, unknown>) {
    return { shouted, args };
  }

  @McpTool({ name: 'lamp.raw', description: 'No declared parameter' })
  raw(...args: unknown[]) {
    return { count: args.length, hasCall: typeof (args[2] as { tool?: unknown } | undefined)?.tool === 'object' };
  }
}

@Injectable()
@UseGuards(ClosedGuard)
@McpWorkflow(lampMachine)
class LockedLampTools {
  @McpTool({ name: 'locked.off', description: 'Switch it off (a guard on the class)' })
  @BindState('on', 'OFF')
  off() {
    received.push(['locked.off']);
    return { off: true };
  }
}

function lampModule(): DynamicModule {
  @Module({})
  class LampModule {}
  return {
    module: LampModule,
    imports: [McpModule.forRoot({ name: 'lamps', version: '1.0.0', machines: [lampMachine] })],
    providers: [LampTools, LockedLampTools],
  };
}

describe('methods that nothing of the app applies to, and the cases that keep Nest’s pipeline', () => {
  let app: INestApplication;
  let agent: TestClient;

  const start = async (configure?: (nest: INestApplication) => void) => {
    app = await listenApp([lampModule()], { configure });
    agent = await connectClient(await mcpUrl(app));
  };

  beforeEach(() => {
    received.length = 0;
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  it('a gated method gets its own parameters and its Observable is taken to its value; the transition fires', async () => {
    await start();
    const result = await agent.call('lamp.on', { label: 'desk' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ label: 'desk', from: 'off' });
    expect(received).toHaveLength(1);
    expect(received[0]).toHaveLength(2);
    expect(received[0][0]).toBe('desk');
    expect(await agent.names()).not.toContain('lamp.on');
    expect(agent.listChanged()).toBe(1);
  });

  it('an Observable of several values answers its last, as under Nest’s pipeline', async () => {
    await start();
    expect((await agent.call('lamp.status')).structuredContent).toEqual({ state: 'off' });
  });

  it('a custom parameter decorator gets its value from Nest, in the "mcp" context', async () => {
    await start();
    expect((await agent.call('lamp.name', { extra: 1 })).structuredContent).toEqual({ shouted: 'mcp:LAMP.NAME', args: { extra: 1 } });
  });

  it('a method that declares no parameter gets the handler arguments', async () => {
    await start();
    expect((await agent.call('lamp.raw')).structuredContent).toEqual({ count: 3, hasCall: true });
  });

  it('a guard on the class refuses its methods: handler not run, state unchanged', async () => {
    await start();
    await agent.call('lamp.on', { label: 'desk' });
    const result = await agent.call('locked.off');
    expect(result.isError).toBe(true);
    expect(received.map(([first]) => first)).toEqual(['desk']);
    expect((await agent.call('lamp.status')).structuredContent).toEqual({ state: 'on' });
  });

  it('a global guard of the app applies to every method', async () => {
    await start((nest) => void nest.useGlobalGuards(new ClosedGuard()));
    const result = await agent.call('lamp.on', { label: 'desk' });
    expect(result.isError).toBe(true);
    expect(received).toHaveLength(0);
    expect((await agent.call('lamp.raw')).isError).toBe(true);
  });
});
