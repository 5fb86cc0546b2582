import { Injectable, type INestApplication } from '@nestjs/common';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Test } from '@nestjs/testing';
import type { McpModuleOptions } from '../../lib/index.js';
import { WorkflowGate, type WorkflowAdmission, type WorkflowCall } from '../../lib/extend.js';
import { billingModule } from '../fixtures/billing.app.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { RecordingLogger } from '../utils/recording-logger.js';

/** A gate of the app's: counts the workflow calls it admits. */
@Injectable()
class CountingGate extends WorkflowGate {
  static admitted = 0;

  protected override async admit(call: WorkflowCall): Promise<WorkflowAdmission> {
    CountingGate.admitted += 1;
    return super.admit(call);
  }
}

/** A configuration of every group the gate and the sessions read. */
const options: Partial<McpModuleOptions> = {
  gate: { useClass: CountingGate, refusal: 'jsonrpc', handleToolsMenu: 'all', leaseMs: 4_000 },
  transports: { http: { sessions: { maxFollowersPerInstance: 4 } } },
};

describe('the gate and session options in their groups', () => {
  let app: INestApplication;
  let agent: TestClient;
  let logs: RecordingLogger;

  beforeEach(async () => {
    CountingGate.admitted = 0;
    logs = new RecordingLogger();
    const moduleRef = await Test.createTestingModule({ imports: [billingModule(options)] })
      .setLogger(logs)
      .compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  it('boots without a warning about the options', () => {
    expect(logs.matching('warn', /^McpModule: /)).toEqual([]);
  });

  it('runs the app gate, lists every handle-keyed tool and refuses as JSON-RPC errors', async () => {
    expect(await agent.names()).toEqual(expect.arrayContaining(['payment.capture', 'payment.refund', 'invoice.submit']));
    const refused = await agent.call('invoice.discharge').then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32602);
    expect((refused as McpError).data).toMatchObject({ code: 'FORBIDDEN', tool: 'invoice.discharge', state: 'draft' });
    expect(app.get(HandlerLog).count('invoice.discharge')).toBe(0);
    expect((await agent.call('invoice.submit')).isError).toBeFalsy();
    expect(CountingGate.admitted).toBe(2);
  });
});
