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
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { BindState, McpModule, McpTool, McpWorkflow, McpStartWorkflow, McpArgs, McpContext, type McpToolContext } from '../../lib/index.js';
import { approvalMachine } from '../fixtures/approval.app.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** Trims and lower-cases a name, so `"Alice "` and `"alice"` are one person. */
@Injectable()
class NormalizeNamePipe implements PipeTransform<string, string> {
  transform(value: string): string {
    return value.trim().toLowerCase();
  }
}

/** The same, on the whole arguments object. */
@Injectable()
class NormalizeApproverPipe implements PipeTransform<Record<string, unknown>, Record<string, unknown>> {
  transform(value: Record<string, unknown>): Record<string, unknown> {
    return { ...value, approver: new NormalizeNamePipe().transform(String(value.approver)) };
  }
}

/** An interceptor of the app's, so the gate runs among the method's interceptors (before its pipes). */
@Injectable()
class PassThroughInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle();
  }
}

const approveInput = z.object({ approvalId: z.string(), approver: z.string().min(1) });
const statusInput = z.object({ approvalId: z.string() });

/** The two-person rule with the approver's name normalised by a pipe: on one argument (gate around the method), or on all of them (gate among interceptors). */
@Injectable()
@McpWorkflow(approvalMachine)
class PipedApprovalTools {
  @McpTool({ name: 'approval.request', description: 'Open a request' })
  @McpStartWorkflow(approvalMachine)
  request() {
    return { requested: true };
  }

  @McpTool({ name: 'approval.approve', description: 'Approve (gate around the method)', inputSchema: approveInput })
  @BindState('review', 'APPROVE')
  approve(@McpArgs('approver', NormalizeNamePipe) approver: string) {
    return { approver };
  }

  @McpTool({ name: 'approval.approveIntercepted', description: 'Approve (gate among interceptors)', inputSchema: approveInput })
  @BindState('review', 'APPROVE')
  @UseInterceptors(PassThroughInterceptor)
  approveIntercepted(@McpArgs(NormalizeApproverPipe) input: { approver: string }) {
    return { approver: input.approver };
  }

  @McpTool({ name: 'approval.status', description: 'Show a request', inputSchema: statusInput })
  status(@McpContext() ctx: McpToolContext) {
    return { state: ctx.state, context: ctx.workflowContext };
  }
}

function pipedApprovalModule(): DynamicModule {
  @Module({})
  class PipedApprovalModule {}
  return {
    module: PipedApprovalModule,
    imports: [McpModule.forRoot({ name: 'approvals', version: '1.0.0', machines: [approvalMachine] })],
    providers: [PipedApprovalTools, PassThroughInterceptor],
  };
}

const refusalCodeOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;

describe("the machine's guards and assign see the arguments after the app's pipes", () => {
  let app: INestApplication;
  let agent: TestClient;

  beforeEach(async () => {
    app = await listenApp([pipedApprovalModule()]);
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  it.each(['approval.approve', 'approval.approveIntercepted'])('%s: "Alice " and "alice" are one approver, not two', async (tool) => {
    const started = await agent.call('approval.request');
    const { approvalId } = started.structuredContent as { approvalId: string };

    const first = await agent.call(tool, { approvalId, approver: 'Alice ' });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toEqual({ approver: 'alice' });

    const same = await agent.call(tool, { approvalId, approver: 'alice' });
    expect(same.isError).toBe(true);
    expect(refusalCodeOf(same)).toBe('GUARD_REJECTED');

    const status = await agent.call('approval.status', { approvalId });
    expect(status.structuredContent).toEqual({ state: 'review', context: { approvers: ['alice'] } });

    const second = await agent.call(tool, { approvalId, approver: ' Bob' });
    expect(second.isError).toBeFalsy();
    expect((await agent.call('approval.status', { approvalId })).structuredContent).toEqual({
      state: 'approved',
      context: { approvers: ['alice', 'bob'] },
    });
  });
});
