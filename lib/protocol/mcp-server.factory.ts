import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  CancelTaskRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_SERVER_IDENTITY, type McpServerIdentity } from '../server/mcp-server-identity.js';
import { McpPrimitiveRegistry } from '../registry/mcp-primitive.registry.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { MCP_STATE_UNAVAILABLE_CODE } from '../results/json-rpc.codes.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import { httpExchangeOf } from './mcp-http-request.storage.js';
import { McpSdkServer } from './mcp-sdk.server.js';
import { McpSession, type McpServedSession, type McpSessionScope } from '../sessions/mcp-session.js';
import { PrimitiveCallHandler } from './primitive-call.handler.js';
import * as messages from './protocol.messages.js';
import { ToolCallHandler } from './tool-call.handler.js';
import { ToolMenuService } from '../sessions/tool-menu.service.js';
import { McpListMapper } from './mcp-list.mapper.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import type { McpInputRequired } from '../results/input-required.js';
import { McpTasks, taskRequesterOf } from '../tasks/mcp-tasks.js';
import { SessionTaskStore } from './session-task.store.js';
import { SessionSchemaValidator } from './session-schema.validator.js';

/** A 2025-11-25 call's answer: its rounds end with the handler's own result, as `McpInputRounds` asks the client itself. */
const settled = <T>(result: Promise<T | McpInputRequired>): Promise<T> => result as Promise<T>;

/**
 * Creates one SDK `Server` per connection (the SDK refuses a second `connect`): the lists
 * (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`) answered per
 * session, calls, gets and reads routed through the gate, completions, and `logging/setLevel`.
 * The capabilities follow what the app declares: prompts, resources and completions only when
 * it has some.
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger('McpServer');

  constructor(
    @Inject(MCP_SERVER_IDENTITY) private readonly options: McpServerIdentity,
    private readonly menu: ToolMenuService,
    private readonly lists: McpListMapper,
    private readonly calls: ToolCallHandler,
    private readonly primitiveCalls: PrimitiveCallHandler,
    private readonly primitives: McpPrimitiveRegistry,
    private readonly telemetry: McpTelemetry,
    private readonly tasks: McpTasks,
    private readonly tools: McpToolRegistry,
  ) {}

  createSession(kind: 'stateful' | 'stateless' | 'stdio', id?: string, scope?: McpSessionScope, principal?: string): McpServedSession {
    const capabilities = this.declaredCapabilities('legacy');
    // The SDK answers tasks/get, tasks/result, tasks/list and tasks/cancel from the store it is given.
    const taskStore: SessionTaskStore | undefined = capabilities.tasks
      ? new SessionTaskStore(
          this.tasks,
          () => session,
          () => taskRequesterOf(session, principal ?? server.callerAuth?.clientId),
        )
      : undefined;
    const server: McpSdkServer = new McpSdkServer(
      { name: this.options.name, version: this.options.version },
      { capabilities, instructions: this.options.instructions, taskStore, jsonSchemaValidator: new SessionSchemaValidator() },
      { telemetry: this.telemetry, transport: kind === 'stdio' ? 'pipe' : 'tcp' },
    );
    const session = new McpSession(kind, server, id, scope, principal) as McpServedSession;
    if (kind !== 'stdio') {
      // The HTTP transport serves each request under its session: the exchange is found by the request's id there.
      server.findExchangesWith((requestId) => httpExchangeOf(session, requestId));
    }
    if (taskStore) {
      // The SDK's own handlers answer a task store that fails as invalid params or an invalid request.
      server.setRequestHandler(ListTasksRequestSchema, async (request) => ({ ...(await taskStore.listTasks(request.params?.cursor)) }));
      server.setRequestHandler(CancelTaskRequestSchema, async (request) => ({ ...(await taskStore.cancelTask(request.params.taskId)) }));
    }
    server.setRequestHandler(ListToolsRequestSchema, (_request, extra) =>
      this.list(session, 'tools/list', async () => ({ tools: this.lists.tools(await this.menu.tools(session, extra.authInfo)) })),
    );
    server.setToolCallHandler((params, extra) => this.calls.handle(session, params, extra));
    server.setRequestHandler(SetLevelRequestSchema, (request) => {
      session.logLevel = request.params.level;
      return {};
    });
    if (capabilities.prompts) {
      server.setRequestHandler(ListPromptsRequestSchema, () =>
        this.list(session, 'prompts/list', async () => ({ prompts: this.lists.prompts(await this.menu.prompts(session)) })),
      );
      server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
        settled(this.primitiveCalls.getPrompt(session, request.params, extra)),
      );
    }
    if (capabilities.resources) {
      server.setRequestHandler(ListResourcesRequestSchema, () =>
        this.list(session, 'resources/list', async () => ({ resources: this.lists.resources(await this.menu.resources(session)) })),
      );
      server.setRequestHandler(ListResourceTemplatesRequestSchema, () =>
        this.list(session, 'resources/templates/list', async () => ({
          resourceTemplates: this.lists.resourceTemplates(await this.menu.resources(session)),
        })),
      );
      server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
        settled(this.primitiveCalls.readResource(session, request.params.uri, extra)),
      );
      server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
        await this.primitiveCalls.subscribe(session, request.params.uri, extra);
        return {};
      });
      server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
        this.primitiveCalls.unsubscribe(session, request.params.uri);
        return {};
      });
    }
    if (capabilities.completions) {
      server.setRequestHandler(CompleteRequestSchema, (request) =>
        this.primitiveCalls.complete(session, request.params.ref, request.params.argument, request.params.context?.arguments),
      );
    }
    this.options.configureServer?.(server, { kind, sessionId: id });
    if (kind !== 'stateless') {
      this.measureSession(server, kind);
    }
    return session;
  }

  /**
   * Tools and logging always; prompts, resources and completions when the app declares some;
   * `listChanged` and resource subscriptions in the 2025 era (2026-07-28 lists never change
   * while the server runs, and it has no `resources/subscribe`).
   */
  declaredCapabilities(era: 'legacy' | 'modern'): ServerCapabilities {
    const prompts = this.primitives.prompts();
    const resources = this.primitives.resources();
    const completes = [...prompts, ...resources].some((definition) => Object.keys(definition.completers).length > 0);
    // In the 2026-07-28 era the lists never change while the server runs: nothing to announce.
    const lists = era === 'legacy' ? { listChanged: true } : {};
    return {
      tools: lists,
      logging: {},
      ...(prompts.length ? { prompts: lists } : {}),
      ...(resources.length ? { resources: era === 'legacy' ? { ...lists, subscribe: true } : lists } : {}),
      ...(completes ? { completions: {} } : {}),
      // 2025-11-25 tasks; the 2026-07-28 era declares its tasks extension itself.
      ...(era === 'legacy' && this.tasksServed() ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
    };
  }

  /** Whether some tool runs as a task (`@McpTool({ task })`). */
  tasksServed(): boolean {
    return this.tools.all().some((tool) => tool.taskSupport !== undefined);
  }

  /** Measures the connection from now until it closes (`mcp.server.session.duration`); an `onclose` set before is kept. */
  private measureSession(server: McpSdkServer, kind: 'stateful' | 'stdio'): void {
    const ended = this.telemetry.openSession(kind, () => server.protocolVersion);
    const previous = server.onclose;
    server.onclose = () => {
      ended();
      previous?.();
    };
  }

  /** Answers a list request; a store failure is an internal error without driver text. */
  private async list<T>(session: McpSession, method: string, answer: () => Promise<T>): Promise<T> {
    session.touch();
    try {
      return await answer();
    } catch (error) {
      this.logger.error(messages.menuFailed(method, error), error instanceof Error ? error.stack : undefined);
      throw new JsonRpcError(MCP_STATE_UNAVAILABLE_CODE, messages.menuUnavailable(method), { code: 'STATE_UNAVAILABLE' });
    }
  }
}
