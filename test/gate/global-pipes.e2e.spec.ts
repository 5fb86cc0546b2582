import {
  Injectable,
  Module,
  UseInterceptors,
  type CallHandler,
  type DynamicModule,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
  type PipeTransform,
} from '@nestjs/common';
import { z } from 'zod';
import { defineMachine, McpArgs, BindState, McpContext, McpModule, McpTool, McpWorkflow, type McpToolContext } from '../../lib/index.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** A session-keyed ticket: open until CLOSE. */
const ticketMachine = defineMachine({
  id: 'ticket',
  initial: 'open',
  states: { open: { on: { CLOSE: 'closed' } }, closed: {} },
});

/** A global pipe of the kind apps have: trims strings, passes everything else through unchanged. */
class TrimStringsPipe implements PipeTransform {
  transform(value: unknown): unknown {
    return typeof value === 'string' ? value.trim() : value;
  }
}

/** A global pipe that hands every object on as a copy (a "defensive copy" pipe). */
class CopyObjectsPipe implements PipeTransform {
  transform(value: unknown): unknown {
    return typeof value === 'object' && value !== null ? { ...value } : value;
  }
}

@Injectable()
class PassThroughInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle();
  }
}

const closeInput = z.object({ reason: z.string() });

/** What the gated methods received: the arguments they were called with, in order. */
const received: unknown[][] = [];

@Injectable()
@McpWorkflow(ticketMachine)
class TicketTools {
  @McpTool({ name: 'ticket.close', description: 'Close (gate around the method)', inputSchema: closeInput })
  @BindState('open', 'CLOSE')
  close(@McpArgs('reason') reason: string) {
    // eslint-disable-next-line prefer-rest-params -- what the method was really called with
    received.push([...arguments]);
    return { reason };
  }

  @McpTool({ name: 'ticket.closeIntercepted', description: 'Close (gate among interceptors)', inputSchema: closeInput })
  @BindState('open', 'CLOSE')
  @UseInterceptors(PassThroughInterceptor)
  closeIntercepted(@McpArgs('reason') reason: string, @McpContext() ctx: McpToolContext) {
    // eslint-disable-next-line prefer-rest-params -- what the method was really called with
    received.push([...arguments]);
    return { reason, state: ctx.state };
  }

  @McpTool({ name: 'ticket.status', description: 'Show the ticket' })
  status(@McpContext() ctx: McpToolContext) {
    return { state: ctx.state };
  }
}

function ticketModule(): DynamicModule {
  @Module({})
  class TicketModule {}
  return {
    module: TicketModule,
    imports: [McpModule.forRoot({ name: 'tickets', version: '1.0.0', machines: [ticketMachine] })],
    providers: [TicketTools, PassThroughInterceptor],
  };
}

describe("gated methods under the app's global pipes", () => {
  let app: INestApplication;
  let agent: TestClient;

  const start = async (pipe: PipeTransform) => {
    app = await listenApp([ticketModule()], { configure: (nest) => void nest.useGlobalPipes(pipe) });
    agent = await connectClient(await mcpUrl(app));
  };

  beforeEach(() => {
    received.length = 0;
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  it.each(['ticket.close', 'ticket.closeIntercepted'])(
    '%s: a pipe that passes what it does not handle leaves the call to the gate; the method gets exactly its own parameters',
    async (tool) => {
      await start(new TrimStringsPipe());
      const result = await agent.call(tool, { reason: '  duplicate ' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ reason: 'duplicate' });
      expect(received).toHaveLength(1);
      expect(received[0]).toHaveLength(tool === 'ticket.close' ? 1 : 2);
      expect(received[0][0]).toBe('duplicate');
      expect((await agent.call('ticket.status')).structuredContent).toEqual({ state: 'closed' });
      expect(await agent.names()).not.toContain(tool);
    },
  );

  it.each(['ticket.close', 'ticket.closeIntercepted'])(
    '%s: a pipe that replaces every object fails the call closed: method not run, state unchanged, tools still listed',
    async (tool) => {
      await start(new CopyObjectsPipe());
      const result = await agent.call(tool, { reason: 'duplicate' });
      expect(result.isError).toBe(true);
      expect(received).toHaveLength(0);
      expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/internal error \(error id [0-9a-f]+\)/) }]);
      // Still open: both close tools are listed, and the call fired no list_changed.
      expect(await agent.names()).toEqual(expect.arrayContaining(['ticket.close', 'ticket.closeIntercepted']));
      expect(agent.listChanged()).toBe(0);
    },
  );
});
