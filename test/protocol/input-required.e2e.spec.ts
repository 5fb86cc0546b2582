import { Module, type INestApplication } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { McpModule } from '../../lib/index.js';
import { ConformanceInputRequired } from '../conformance/conformance.input-required.js';
import { mcpUrl, textOf } from '../utils/http-client.js';
import { connectModernClient } from '../utils/modern-client.js';
import { listenApp } from '../utils/test-app.js';

@Module({
  imports: [McpModule.forRoot({ name: 'input-required', version: '1.0.0', inputRequests: { maxRounds: 3 } })],
  providers: [ConformanceInputRequired],
})
class InputRequiredAppModule {}

/** The answers of the client's user, model and workspace, by question. */
const ANSWERS: Record<string, ElicitResult> = {
  'What is your name?': { action: 'accept', content: { name: 'Alice' } },
  'Step 1: What is your name?': { action: 'accept', content: { name: 'Alice' } },
  'Step 2: What is your favorite color?': { action: 'accept', content: { color: 'blue' } },
  'What context should the prompt use?': { action: 'accept', content: { context: 'invoices' } },
};

describe('handlers that return mcpInputRequired(...), in both eras', () => {
  let app: INestApplication;
  let url: URL;
  const clients: { close(): Promise<void> }[] = [];

  /** An SDK v1 client (2025-11-25 session) that declares `capabilities` and answers every kind of request. */
  const legacy = async (capabilities: ClientCapabilities = { elicitation: {}, sampling: {}, roots: {} }) => {
    const client = new Client({ name: 'rounds', version: '1.0.0' }, { capabilities });
    const asked: string[] = [];
    if (capabilities.elicitation) {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message);
        return ANSWERS[request.params.message] ?? { action: 'decline' };
      });
    }
    if (capabilities.sampling) {
      client.setRequestHandler(CreateMessageRequestSchema, () => {
        asked.push('sampling');
        return { role: 'assistant', content: { type: 'text', text: 'Paris.' }, model: 'test', stopReason: 'endTurn' };
      });
    }
    if (capabilities.roots) {
      client.setRequestHandler(ListRootsRequestSchema, () => {
        asked.push('roots');
        return { roots: [{ uri: 'file:///work', name: 'work' }] };
      });
    }
    await client.connect(new StreamableHTTPClientTransport(url));
    clients.push(client);
    const call = async (name: string) => (await client.callTool({ name, arguments: {} })) as CallToolResult;
    return { client, asked, call };
  };

  beforeAll(async () => {
    app = await listenApp([InputRequiredAppModule]);
    url = await mcpUrl(app);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('asks a 2025-11-25 client itself, round after round, with the requestState the handler kept', async () => {
    const agent = await legacy();
    expect(textOf(await agent.call('test_input_required_result_multi_round'))).toBe("Alice's favorite color is blue.");
    expect(agent.asked).toEqual(['Step 1: What is your name?', 'Step 2: What is your favorite color?']);
  });

  it('sends several requests of one round (elicitation, sampling, roots), and serves a prompt the same way', async () => {
    const agent = await legacy();
    expect(textOf(await agent.call('test_input_required_result_multiple_inputs'))).toBe('Hello, Alice! 1 root(s).');
    expect(agent.asked).toEqual(['What is your name?', 'sampling', 'roots']);
    const prompt = await agent.client.getPrompt({ name: 'test_input_required_result_prompt' });
    expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'Use this context: invoices' });
  });

  it('refuses a request the 2025-11-25 client did not declare the capability for, naming it', async () => {
    const agent = await legacy({ elicitation: {} });
    const refused = await agent.call('test_input_required_result_sampling').catch((error: Error) => error);
    expect(refused).toMatchObject({
      code: -32021,
      message: expect.stringContaining('This tool sends sampling/createMessage, which needs the client capability "sampling"'),
    });
  });

  it('stops a handler that keeps asking after inputRequests.maxRounds', async () => {
    const agent = await legacy({ elicitation: {} });
    agent.client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }));
    const stopped = await agent.call('test_input_required_result_elicitation').catch((error: Error) => error);
    expect(stopped).toMatchObject({
      message: expect.stringContaining('"test_input_required_result_elicitation" asked the client for input 3 times without answering'),
    });
  });

  it('answers a 2026-07-28 client with input-required results, which the SDK v2 client fulfils and retries', async () => {
    const asked: { message: string }[] = [];
    const client = await connectModernClient(url, undefined, { answer: { action: 'accept', content: { name: 'Bob' } }, asked });
    clients.push(client);
    const result = (await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })) as CallToolResult;
    expect(textOf(result)).toBe('Hello, Bob!');
    expect(asked).toEqual([expect.objectContaining({ message: 'What is your name?' })]);
  });
});
