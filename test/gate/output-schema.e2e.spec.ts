import { jest } from '@jest/globals';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Ajv } from 'ajv';
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

  it('names each listed output schema by its content, so an SDK v1 client compiles it once, not on every list', async () => {
    const listed = async () => {
      const { tools } = await agent.client.listTools();
      return tools.find((tool) => tool.name === 'lamp.meter')!.outputSchema!;
    };
    const first = await listed();
    expect(first).toEqual({
      ...(z.toJSONSchema(reading, { io: 'output' }) as object),
      $id: expect.stringMatching(/^urn:nestjs-mcp-fsm:output-schema:[\w-]{32}$/),
    });
    const { tools } = await agent.client.listTools();
    expect(new Set(tools.map((tool) => tool.outputSchema?.$id))).toEqual(new Set([first.$id]));

    // The options of the SDK v1 client's own Ajv (createDefaultAjvInstance).
    const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
    const compile = jest.spyOn(ajv, 'compile');
    const validator = new AjvJsonSchemaValidator(ajv);
    const results = [await listed(), await listed()].map((schema) => validator.getValidator(schema)({ watts: 5 }).valid);
    expect(results).toEqual([true, true]);
    expect(compile).toHaveBeenCalledTimes(1);
  });
});
