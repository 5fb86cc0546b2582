import type { INestApplication } from '@nestjs/common';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { IncomingMessage } from 'node:http';
import { ConfirmLog, confirmModule } from '../fixtures/confirm.app.js';
import { mcpUrl } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** `Bearer <name>` is the caller <name>; no header is anonymous. */
const authenticate = (req: IncomingMessage) => {
  const name = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  return name ? { token: name, clientId: name, scopes: [] } : undefined;
};

const CONFIRM_KEY = 'nestjs-mcp-fsm/confirm';
const PROTOCOL = '2026-07-28';

type ToolResult = {
  content?: { type: string; text?: string }[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
  structuredContent?: unknown;
};
type RawResult = ToolResult & {
  resultType?: string;
  inputRequests?: Record<string, { method: string; params: { message: string } }>;
  requestState?: string;
};
type RawResponse = { result?: RawResult; error?: { code: number; message: string; data?: unknown } };

const textOf = (result: ToolResult) => result.content?.[0]?.text ?? '';
const codeOf = (result: ToolResult) => (result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;

describe('confirmations in MCP 2026-07-28 (input-required results)', () => {
  let app: INestApplication;
  let url: URL;
  const clients: Client[] = [];
  let nextId = 1;

  /** An SDK v2 client pinned to 2026-07-28 that answers each elicitation with `answer` and records the questions. */
  const connect = async (principal: string, { elicitation = true, answer = { action: 'accept', content: {} } as object } = {}) => {
    const asked: { message: string }[] = [];
    const client = new Client(
      { name: 'confirm-e2e-2026', version: '1.0.0' },
      { capabilities: elicitation ? { elicitation: {} } : {}, versionNegotiation: { mode: { pin: PROTOCOL } } },
    );
    if (elicitation) {
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params as { message: string });
        return answer as never;
      });
    }
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${principal}` } } }));
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as ToolResult;
    return { client, asked, call };
  };

  /** One raw 2026-07-28 `tools/call`, as a client that drives the rounds by hand sends it. */
  const raw = async (principal: string, name: string, params: Record<string, unknown> = {}): Promise<RawResponse> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL,
        'mcp-method': 'tools/call',
        'mcp-name': name,
        authorization: `Bearer ${principal}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: nextId++,
        method: 'tools/call',
        params: {
          name,
          arguments: {},
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': PROTOCOL,
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          },
        },
      }),
    });
    const body = await response.text();
    const json = body.startsWith('{') ? body : /^data: (.*)$/m.exec(body)![1];
    return JSON.parse(json) as RawResponse;
  };
  const accept = { [CONFIRM_KEY]: { action: 'accept', content: {} } };
  /** Opens a transfer as `principal`, asks to execute 5 EUR of it, and answers the retry that says yes with `reference`. */
  const askTransfer = async (principal: string, reference: string) => {
    const opened = await raw(principal, 'transfer.open');
    const transferId = (opened.result!.structuredContent as { transferId: string }).transferId;
    const ask = await raw(principal, 'transfer.execute', { arguments: { transferId, amount: 5 } });
    const answer = {
      inputResponses: { [CONFIRM_KEY]: { action: 'accept', content: { reference } } },
      requestState: ask.result!.requestState,
    };
    return { transferId, answer };
  };

  const start = async (options: Parameters<typeof confirmModule>[0] = {}) => {
    app = await listenApp([confirmModule({ auth: { fromRequest: authenticate }, transports: { http: { direct: true } }, ...options })]);
    url = await mcpUrl(app);
  };

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await app.close();
  });

  it('asks through an input-required result that the SDK client fulfils with its elicitation handler; the yes discharges once', async () => {
    await start();
    const alice = await connect('alice');
    const result = await alice.call('payout.discharge');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ discharged: true });
    expect(alice.asked).toEqual([expect.objectContaining({ message: 'Discharge payout of session local? (state: approved)' })]);
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(1);
    const again = await alice.call('payout.discharge');
    expect(codeOf(again)).toBe('FORBIDDEN');
    expect(alice.asked).toHaveLength(1);
  });

  it.each(['decline', 'cancel'])('answers %s with DECLINED and leaves the payout approved', async (action) => {
    await start();
    const bob = await connect('bob', { answer: { action } });
    const result = await bob.call('payout.discharge');
    expect(codeOf(result)).toBe('DECLINED');
    expect(textOf(result)).toContain('payout stays "approved"');
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
    expect(result._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ state: 'approved', allowedTools: ['payout.discharge', 'payout.hold'] });
  });

  it('refuses a request whose client capabilities lack elicitation with CONFIRMATION_REQUIRED', async () => {
    await start();
    const carol = await connect('carol', { elicitation: false });
    const result = await carol.call('payout.discharge');
    expect(codeOf(result)).toBe('CONFIRMATION_REQUIRED');
    expect(textOf(result)).toContain('do not include "elicitation"');
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
  });

  it('gives the question and a signed requestState, and goes on only with both: a yes without the state is asked again', async () => {
    await start();
    const first = await raw('dave', 'payout.discharge');
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { [CONFIRM_KEY]: { method: 'elicitation/create' } },
    });
    expect(first.result!.inputRequests![CONFIRM_KEY].params.message).toMatch(/^Discharge payout/);
    expect(typeof first.result!.requestState).toBe('string');
    const unsigned = await raw('dave', 'payout.discharge', { inputResponses: accept });
    expect(unsigned.result?.resultType).toBe('input_required');
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
    const done = await raw('dave', 'payout.discharge', { inputResponses: accept, requestState: first.result!.requestState });
    expect(done.result?.isError).toBeFalsy();
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(1);
  });

  it('refuses a tampered requestState with -32602 and changes nothing', async () => {
    await start();
    const first = await raw('erin', 'payout.discharge');
    const state = first.result!.requestState!;
    const [version, body, mac] = state.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), exp: 4102444800 })).toString(
      'base64url',
    );
    for (const tampered of [`${state}-TAMPERED`, `${version}.${forged}.${mac}`]) {
      const refused = await raw('erin', 'payout.discharge', { inputResponses: accept, requestState: tampered });
      expect(refused.error?.code).toBe(-32602);
      expect(refused.error?.message).toMatch(/^Invalid requestState for "payout.discharge": /);
    }
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
  });

  it("refuses another principal's requestState, and one issued for another tool", async () => {
    await start();
    const first = await raw('frank', 'payout.discharge');
    const foreign = await raw('grace', 'payout.discharge', { inputResponses: accept, requestState: first.result!.requestState });
    expect(foreign.error).toMatchObject({ code: -32602, message: expect.stringContaining('it was issued to another caller') });
    const otherTool = await raw('frank', 'payout.hold', { inputResponses: accept, requestState: first.result!.requestState });
    expect(otherTool.error).toMatchObject({ code: -32602, message: expect.stringContaining('it was issued for another tool') });
    expect(app.get(ConfirmLog).runs).toEqual([]);
  });

  it('refuses a replayed requestState: after the discharge with FORBIDDEN, after a refused answer as used', async () => {
    await start();
    const first = await raw('heidi', 'payout.discharge');
    const yes = { inputResponses: accept, requestState: first.result!.requestState };
    expect((await raw('heidi', 'payout.discharge', yes)).result?.isError).toBeFalsy();
    const replay = await raw('heidi', 'payout.discharge', yes);
    expect(codeOf(replay.result!)).toBe('FORBIDDEN');
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(1);

    const { transferId, answer } = await askTransfer('ivan', 'x');
    const misfit = await raw('ivan', 'transfer.execute', { arguments: { transferId, amount: 5 }, ...answer });
    expect(codeOf(misfit.result!)).toBe('DECLINED');
    const again = await raw('ivan', 'transfer.execute', { arguments: { transferId, amount: 5 }, ...answer });
    expect(codeOf(again.result!)).toBe('CONFIRMATION_REQUIRED');
    expect(textOf(again.result!)).toContain('the confirmation sent back was already used');
  });

  it('refuses a yes given for other arguments, and one given before the instance changed', async () => {
    await start();
    const { transferId, answer } = await askTransfer('judy', 'REF-1');
    const bigger = await raw('judy', 'transfer.execute', { arguments: { transferId, amount: 5000 }, ...answer });
    expect(codeOf(bigger.result!)).toBe('CONFIRMATION_REQUIRED');
    expect(textOf(bigger.result!)).toContain('was given for another call');

    const question = await raw('kim', 'payout.discharge');
    await raw('kim', 'payout.hold');
    await raw('kim', 'payout.release');
    const stale = await raw('kim', 'payout.discharge', { inputResponses: accept, requestState: question.result!.requestState });
    expect(codeOf(stale.result!)).toBe('CONFIRMATION_REQUIRED');
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
    expect(app.get(ConfirmLog).count('transfer.execute')).toBe(0);
  });

  it('refuses an expired requestState with -32602 naming its lifetime', async () => {
    await start({ inputRequests: { requestStateTtlMs: 1000 } });
    const first = await raw('liam', 'payout.discharge');
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const late = await raw('liam', 'payout.discharge', { inputResponses: accept, requestState: first.result!.requestState });
    expect(late.error).toMatchObject({ code: -32602, message: expect.stringContaining('it expired (a requestState is valid for 1 s)') });
    expect(app.get(ConfirmLog).count('payout.discharge')).toBe(0);
  });

  it('accepts a requestState of another process that shares the key, and refuses one signed with another key', async () => {
    const key = 'k'.repeat(32);
    await start({ inputRequests: { requestStateKey: key } });
    const first = await raw('mia', 'payout.discharge');
    await app.close();
    await start({ inputRequests: { requestStateKey: key } });
    const done = await raw('mia', 'payout.discharge', { inputResponses: accept, requestState: first.result!.requestState });
    expect(done.result?.isError).toBeFalsy();
    const second = await raw('noah', 'payout.discharge');
    await app.close();
    await start({ inputRequests: { requestStateKey: 'z'.repeat(32) } });
    const refused = await raw('noah', 'payout.discharge', { inputResponses: accept, requestState: second.result!.requestState });
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining('another server key signed it') });
  });
});
