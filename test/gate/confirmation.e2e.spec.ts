import type { INestApplication } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { ConfirmLog, confirmModule } from '../fixtures/confirm.app.js';
import { mcpUrl, textOf } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** What the person at the client does with the next question. */
type Answer = ElicitResult | ((request: ElicitRequest['params']) => Promise<ElicitResult>);

/** An SDK v1 client that declares elicitation (or not) and answers each question from a queue, recording what it was asked. */
interface AskedClient {
  client: Client;
  asked: ElicitRequest['params'][];
  answers: Answer[];
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  names: () => Promise<string[]>;
}

/** Keeps the next question open: `question` settles when it is asked, `answer` gives the person's answer. */
function holdNextQuestion(agent: AskedClient): { question: Promise<void>; answer: (result: ElicitResult) => void } {
  let answer!: (result: ElicitResult) => void;
  let asked!: () => void;
  const question = new Promise<void>((resolve) => (asked = resolve));
  agent.answers.push(() => {
    asked();
    return new Promise<ElicitResult>((resolve) => (answer = resolve));
  });
  return { question, answer: (result) => answer(result) };
}

const errorOf = (result: CallToolResult) =>
  result._meta?.['nestjs-mcp-fsm/error'] as { code: string; state: string; allowedTools: string[] };

describe('confirmations on a 2025-11-25 session (stateful HTTP, SDK v1 client)', () => {
  let app: INestApplication;
  let url: URL;
  let clients: Client[];

  const connect = async ({ elicitation = true }: { elicitation?: boolean } = {}): Promise<AskedClient> => {
    const client = new Client({ name: 'confirm-e2e', version: '1.0.0' }, { capabilities: elicitation ? { elicitation: {} } : {} });
    const asked: ElicitRequest['params'][] = [];
    const answers: Answer[] = [];
    if (elicitation) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params);
        const answer = answers.shift() ?? { action: 'accept', content: {} };
        return typeof answer === 'function' ? answer(request.params) : answer;
      });
    }
    await client.connect(new StreamableHTTPClientTransport(url));
    clients.push(client);
    return {
      client,
      asked,
      answers,
      call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
      names: async () => (await client.listTools()).tools.map((tool) => tool.name),
    };
  };

  const start = async (options: Parameters<typeof confirmModule>[0] = {}) => {
    app = await listenApp([confirmModule(options)]);
    url = await mcpUrl(app);
  };

  beforeEach(() => {
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('asks with a message naming the step, and discharges after the yes: the handler runs once', async () => {
    await start();
    const agent = await connect();
    const result = await agent.call('payout.discharge');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ discharged: true });
    expect(agent.asked).toHaveLength(1);
    expect(agent.asked[0].message).toMatch(/^Discharge payout of session [\w-]+\? \(state: approved\)$/);
    expect(agent.asked[0]).toMatchObject({ mode: 'form', requestedSchema: { type: 'object', properties: {} } });
    expect(result._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'discharged' });
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(1);
    expect(await agent.names()).not.toContain('payout.discharge');
  });

  it('asks an SDK v2 client on a 2025-11-25 session (its default era) through the elicitation handler it registered', async () => {
    await start();
    const asked: string[] = [];
    const client = new V2Client({ name: 'confirm-e2e-v2', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: {} };
    });
    await client.connect(new V2Transport(url));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const result = (await client.callTool({ name: 'payout.discharge', arguments: {} })) as CallToolResult;
      expect(result.structuredContent).toEqual({ discharged: true });
      expect(asked).toEqual([expect.stringMatching(/^Discharge payout of session /)]);
      expect(app.get(ConfirmLog).count('payout.discharge')).toBe(1);
    } finally {
      await client.close();
    }
  });

  it.each([
    ['decline', 'the person at the client declined'],
    ['cancel', 'the person at the client dismissed the question without answering'],
  ] as const)('answers %s with DECLINED: handler not run, state approved, the tool still listed', async (action, why) => {
    await start();
    const agent = await connect();
    agent.answers.push({ action });
    const result = await agent.call('payout.discharge');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      `DECLINED: "payout.discharge" did not run: ${why}. payout stays "approved". Allowed now: payout.discharge, payout.hold.`,
    );
    expect(errorOf(result)).toEqual({
      code: 'DECLINED',
      tool: 'payout.discharge',
      machine: 'payout',
      state: 'approved',
      allowedTools: ['payout.discharge', 'payout.hold'],
      errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
    expect(await agent.names()).toContain('payout.discharge');
    // Asked again, the person says yes this time.
    expect((await agent.call('payout.discharge')).isError).toBeFalsy();
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(1);
  });

  it("answers DECLINED as JSON-RPC -32602 with the refusal's data under gate.refusal: 'jsonrpc'", async () => {
    await start({ gate: { refusal: 'jsonrpc' } });
    const agent = await connect();
    agent.answers.push({ action: 'decline' });
    const error = await agent.call('payout.discharge').catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: -32602, data: { code: 'DECLINED', tool: 'payout.discharge', state: 'approved' } });
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
  });

  it('refuses a client that did not declare elicitation with CONFIRMATION_REQUIRED, never a silent yes', async () => {
    await start();
    const agent = await connect({ elicitation: false });
    const result = await agent.call('payout.discharge');
    expect(result.isError).toBe(true);
    expect(errorOf(result).code).toBe('CONFIRMATION_REQUIRED');
    expect(textOf(result)).toBe(
      'CONFIRMATION_REQUIRED: "payout.discharge" runs only after a person at the client says yes, and this client did not declare the "elicitation" capability (form mode) at initialize: connect with a client that declares it and shows the question to its user. It did not run; payout stays "approved".',
    );
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
    expect(await agent.names()).toContain('payout.discharge');
  });

  it('refuses an out-of-state call with FORBIDDEN without asking anyone', async () => {
    await start();
    const agent = await connect();
    await agent.call('payout.hold');
    const result = await agent.call('payout.discharge');
    expect(errorOf(result).code).toBe('FORBIDDEN');
    expect(agent.asked).toHaveLength(0);
  });

  it('answers DECLINED with the reason when nobody answers within the wait', async () => {
    await start({ inputRequests: { timeoutMs: 300 } });
    const agent = await connect();
    agent.answers.push(() => new Promise<ElicitResult>((resolve) => setTimeout(() => resolve({ action: 'accept', content: {} }), 1500)));
    const result = await agent.call('payout.discharge');
    expect(textOf(result)).toBe(
      'DECLINED: "payout.discharge" did not run: the person at the client did not answer within 0.3 s (inputRequests.timeoutMs, or timeoutMs of @McpConfirm). payout stays "approved". Allowed now: payout.discharge, payout.hold.',
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
  });

  it('holds no claim while the person reads: another call moves the instance meanwhile, and the yes then gets FORBIDDEN', async () => {
    await start();
    const agent = await connect();
    const { question, answer } = holdNextQuestion(agent);
    const discharge = agent.call('payout.discharge');
    await question;
    // Not BUSY: nothing is claimed while the question is open.
    expect((await agent.call('payout.hold')).isError).toBeFalsy();
    answer({ action: 'accept', content: {} });
    const result = await discharge;
    expect(textOf(result)).toBe('FORBIDDEN: "payout.discharge" is not available while payout is "held". Allowed now: payout.release.');
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
    expect(app.get(ConfirmLog).count('payout.hold')).toBe(1);
  });

  it('refuses the yes when the instance changed and came back while the person read', async () => {
    await start();
    const agent = await connect();
    const { question, answer } = holdNextQuestion(agent);
    await agent.call('payout.hold');
    await agent.call('payout.release');
    const discharge = agent.call('payout.discharge');
    await question;
    await agent.call('payout.hold');
    await agent.call('payout.release');
    answer({ action: 'accept', content: {} });
    const result = await discharge;
    expect(errorOf(result).code).toBe('CONFIRMATION_REQUIRED');
    expect(textOf(result)).toContain('payout changed while the person was asked');
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
  });

  it('sends the requested form, checks the answer, and hands it to the handler', async () => {
    await start();
    const agent = await connect();
    const opened = await agent.call('transfer.open');
    const transferId = (opened.structuredContent as { transferId: string }).transferId;
    agent.answers.push({ action: 'accept', content: { reference: 'x' } });
    const misfit = await agent.call('transfer.execute', { transferId, amount: 1200 });
    expect(errorOf(misfit).code).toBe('DECLINED');
    expect(textOf(misfit)).toContain("the answer did not fit the question's form: reference:");
    agent.answers.push({ action: 'accept', content: { reference: 'INV-42' } });
    const done = await agent.call('transfer.execute', { transferId, amount: 1200 });
    expect(done.structuredContent).toEqual({ executed: 1200 });
    expect(agent.asked[1]).toEqual({
      mode: 'form',
      message: `Execute transfer ${transferId} of 1200 EUR?`,
      requestedSchema: {
        type: 'object',
        properties: { reference: { type: 'string', minLength: 3, description: 'Your payment reference' } },
        required: ['reference'],
      },
    });
    expect(app.get(ConfirmLog).answers).toEqual([{ reference: 'INV-42' }]);
  });

  it.each([
    ['single-tenant (its instance is known)', true, '. It did not run; payout stays "approved".'],
    ['without sessions at all', false, '. It did not run.'],
  ])('refuses stateless HTTP, %s, with CONFIRMATION_REQUIRED: there is no way back to the client', async (_, singleTenant, end) => {
    await start({ transports: { http: { stateless: true, singleTenant } } });
    const agent = await connect();
    const result = await agent.call('payout.discharge');
    expect(errorOf(result).code).toBe('CONFIRMATION_REQUIRED');
    expect(textOf(result)).toContain('this stateless HTTP connection has no way to put a question to the client');
    expect(textOf(result).endsWith(end)).toBe(true);
    expect(agent.asked).toHaveLength(0);
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
  });
});
