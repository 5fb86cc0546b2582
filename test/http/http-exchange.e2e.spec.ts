import 'reflect-metadata';
import { createParamDecorator, type ExecutionContext, type INestApplication, Injectable, Module } from '@nestjs/common';
import { McpModule, McpTool } from '../../lib/index.js';
import { mcpUrl, postMcp, RAW_INITIALIZE } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** The `x-tag` header of the HTTP request that carried the call, as a tool reads it. */
const RequestTag = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['x-tag'],
);

/** Holds every call until `expected` calls are running, so they overlap in the server. */
@Injectable()
class Overlap {
  expected = 1;
  private readonly waiting: Array<() => void> = [];

  arrive(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (this.waiting.length >= this.expected) this.waiting.splice(0).forEach((release) => release());
    });
  }
}

@Injectable()
class TagTools {
  constructor(private readonly overlap: Overlap) {}

  @McpTool({ name: 'tag.read', description: "The x-tag header of the call's HTTP request" })
  async read(@RequestTag() tag: unknown) {
    await this.overlap.arrive();
    return String(tag);
  }
}

/** The text of the JSON-RPC answer with `id` in an SSE or JSON response. */
async function answerText(response: Response, id: number): Promise<string> {
  const body = await response.text();
  const messages = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? body
        .split('\n')
        .filter((line) => line.startsWith('data: ') && line.length > 6)
        .map((line) => JSON.parse(line.slice(6)) as unknown)
    : [JSON.parse(body) as unknown];
  const answer = messages.find((message) => (message as { id?: unknown }).id === id) as
    { result: { content: Array<{ text: string }> } } | undefined;
  if (!answer) throw new Error(`no answer to ${id} in ${body}`);
  return answer.result.content[0].text;
}

function call(id: number) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'tag.read', arguments: {} } };
}

describe.each([false, true])('the HTTP request of a call, found by its request id (stateless: %s)', (stateless) => {
  let app: INestApplication;
  let url: URL;
  let overlap: Overlap;

  beforeEach(async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'tags', version: '1.0.0', machines: [], transports: { http: { path: '/mcp', stateless } } })],
      providers: [Overlap, TagTools],
    })
    class TagsModule {}
    app = await listenApp([TagsModule]);
    url = await mcpUrl(app);
    overlap = app.get(Overlap);
  });

  afterEach(async () => {
    await app.close();
  });

  async function openSession(): Promise<Record<string, string>> {
    if (stateless) return {};
    const initialized = await postMcp(url, RAW_INITIALIZE);
    const headers = { 'mcp-session-id': initialized.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    await initialized.text();
    await (await postMcp(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
    return headers;
  }

  it('gives each of overlapping calls the request that carried it, also with the same id on other sessions', async () => {
    const [first, second] = [await openSession(), await openSession()];
    overlap.expected = 4;
    const answers = await Promise.all([
      postMcp(url, call(1), { ...first, 'x-tag': 'first-1' }).then((response) => answerText(response, 1)),
      postMcp(url, call(2), { ...first, 'x-tag': 'first-2' }).then((response) => answerText(response, 2)),
      postMcp(url, call(1), { ...second, 'x-tag': 'second-1' }).then((response) => answerText(response, 1)),
      postMcp(url, call(2), { ...second, 'x-tag': 'second-2' }).then((response) => answerText(response, 2)),
    ]);
    expect(answers).toEqual(['first-1', 'first-2', 'second-1', 'second-2']);
  });

  it('gives every call of a batch the batch request, and a later call with a reused id its own', async () => {
    const session = await openSession();
    overlap.expected = 2;
    const batch = await postMcp(url, [call(3), call(4)], { ...session, 'x-tag': 'batch' });
    const body = batch.clone();
    expect([await answerText(batch, 3), await answerText(body, 4)]).toEqual(['batch', 'batch']);
    overlap.expected = 1;
    expect(await answerText(await postMcp(url, call(3), { ...session, 'x-tag': 'again' }), 3)).toBe('again');
  });
});
