import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import { BindState, defineMachine, McpModule, McpTool, McpWorkflow } from '../../lib/index.js';
import { connectClient, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';

const lampMachine = defineMachine({
  id: 'lamp',
  initial: 'off',
  states: { off: { on: { TOGGLE: 'on' } }, on: { on: { TOGGLE: 'off' } } },
});

const reading = z.object({ watts: z.number() });

@Injectable()
@McpWorkflow(lampMachine)
class LampTools {
  broken = false;

  @McpTool({ name: 'lamp.switch_on', description: 'Switch the lamp on', outputSchema: reading })
  @BindState('off', 'TOGGLE')
  switchOn() {
    return this.broken ? { watts: 'a lot' } : { watts: 60 };
  }

  @McpTool({ name: 'lamp.meter', description: 'Read the meter', outputSchema: reading })
  meter() {
    return this.broken ? { volts: 230 } : { watts: 0 };
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'lamp', version: '1.0.0', machines: [lampMachine] })],
  providers: [LampTools],
})
class LampModule {}

describe('output schemas', () => {
  let app: INestApplication;
  let agent: TestClient;

  beforeEach(async () => {
    app = (await Test.createTestingModule({ imports: [LampModule] }).compile()).createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    agent = await connectClient(await mcpUrl(app));
    app.get(LampTools).broken = true;
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  it('turns a result that breaks the outputSchema into a tool error naming the field', async () => {
    const result = await agent.call('lamp.meter');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      '"lamp.meter" returned a result that does not match its outputSchema: watts: Invalid input: expected number, received undefined.',
    );
  });

  it('fires no transition when a bound tool breaks its outputSchema', async () => {
    const result = await agent.call('lamp.switch_on');
    expect(result.isError).toBe(true);
    expect(await agent.names()).toContain('lamp.switch_on');
    app.get(LampTools).broken = false;
    expect((await agent.call('lamp.switch_on')).structuredContent).toEqual({ watts: 60 });
    expect(await agent.names()).not.toContain('lamp.switch_on');
  });
});
