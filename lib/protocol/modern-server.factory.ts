import { Inject, Injectable, Logger } from '@nestjs/common';
import type { InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';
import type { CallToolResult, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { McpGrants } from '../access/access-requirement.js';
import { McpAccessPolicy } from '../auth/mcp-access.policy.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { MCP_MISSING_CLIENT_CAPABILITY_CODE, MCP_RESOURCE_NOT_FOUND_CODE } from '../results/json-rpc.codes.js';
import { MCP_HTTP_OPTIONS, type McpResolvedHttpOptions } from '../server/http-options.interface.js';
import { MCP_SERVER_IDENTITY, type McpServerIdentity } from '../server/mcp-server-identity.js';
import { MCP_INPUT_REQUEST_OPTIONS, type McpResolvedInputRequestOptions } from './input-request-options.interface.js';
import { CAPABILITY_OF_INPUT_REQUEST, isInputRequired, type McpInputRequest, type McpInputRequired } from '../results/input-required.js';
import type { McpCallRound } from './mcp-call-context.js';
import { McpRequestStateSeal } from './request-state.seal.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { McpSession } from '../sessions/mcp-session.js';
import type { ModernHttpHandler, ModernSdk } from './modern-era.js';
import { readableParamsServer } from './modern-sdk.server.js';
import { PrimitiveCallHandler } from './primitive-call.handler.js';
import * as messages from './protocol.messages.js';
import { ToolCallHandler } from './tool-call.handler.js';
import { McpListMapper } from './mcp-list.mapper.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { TASKS_EXTENSION } from '../tasks/task-wire.js';
import { MODERN_TASK_PARAMS, ModernTaskMethods, type ModernTaskRequest } from './modern-task.methods.js';

/** `params._meta` key under which a 2026-07-28 request asks for log messages at a level. */
const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel';
/** `params._meta` key under which a 2026-07-28 request declares the client's capabilities. */
const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

/**
 * Serves MCP 2026-07-28 on the SDK v2 server packages: a fresh SDK server per request
 * (`createMcpHandler`, which answers `server/discover` and `subscriptions/listen` and checks
 * the envelope and the `Mcp-Method`/`Mcp-Name` headers), with the same call handlers, gate
 * and stores as the 2025 era. Lists are the same for every caller, with cache hints, unless
 * a `@McpRequire` makes them differ by the caller's grants (then cached privately); each call
 * is gated and its result carries the instance's state and allowed tools. Session-keyed
 * machines are keyed by the authenticated principal.
 */
@Injectable()
export class ModernServerFactory {
  private readonly logger = new Logger('McpModern');

  constructor(
    @Inject(MCP_SERVER_IDENTITY) private readonly options: McpServerIdentity,
    @Inject(MCP_HTTP_OPTIONS) private readonly http: McpResolvedHttpOptions | null,
    private readonly servers: McpServerFactory,
    private readonly lists: McpListMapper,
    private readonly calls: ToolCallHandler,
    private readonly primitiveCalls: PrimitiveCallHandler,
    private readonly access: McpAccessPolicy,
    private readonly telemetry: McpTelemetry,
    @Inject(MCP_INPUT_REQUEST_OPTIONS) private readonly inputRequests: McpResolvedInputRequestOptions,
    private readonly taskMethods: ModernTaskMethods,
  ) {}

  /** The Node HTTP handler of the 2026-07-28 era. */
  createHandler(sdk: ModernSdk): ModernHttpHandler {
    const Server = readableParamsServer(sdk, this.telemetry);
    const seal = new McpRequestStateSeal(sdk, this.inputRequests);
    if (this.inputRequests.requestStateKeyGenerated) {
      this.logger.log(messages.requestStateKeyGenerated());
    }
    const handler = sdk.server.createMcpHandler(
      async (context) => this.createServer(sdk, Server, seal, context.authInfo?.clientId, await this.access.grantsOf(context.authInfo)),
      {
        legacy: 'reject',
        // Mostly requests the SDK refused (a missing envelope, a header that disagrees): the client's problem.
        onerror: (error) => this.logger.warn(messages.modernHandlerError(error)),
      },
    );
    return sdk.node.toNodeHandler(handler);
  }

  private createServer(
    sdk: ModernSdk,
    Server: ModernSdk['server']['Server'],
    seal: McpRequestStateSeal,
    principal: string | undefined,
    grants: McpGrants,
  ) {
    const capabilities = this.servers.declaredCapabilities('modern');
    const tasks = this.servers.tasksServed();
    const server = new Server(
      { name: this.options.name, version: this.options.version },
      {
        // The SDK v1 and v2 type packages describe the same JSON differently.
        capabilities: (tasks ? { ...capabilities, extensions: { [TASKS_EXTENSION]: {} } } : capabilities) as never,
        instructions: this.options.instructions,
      },
    );
    const session = new McpSession(
      'modern',
      undefined,
      undefined,
      principal === undefined ? undefined : { scope: 'principal', id: principal },
      principal,
    );
    session.grants = grants;
    // Lists that differ between callers (something requires scopes or roles) must not be shared by caches.
    const hint = { ttlMs: this.http!.listCacheTtlMs, cacheScope: this.lists.variesByCaller() ? ('private' as const) : ('public' as const) };
    const catalog = () => this.lists.catalogFor(grants);
    const answer = <T>(context: ServerContext, work: (extra: McpToolContext['extra']) => Promise<T>): Promise<T> => {
      session.logLevel = context.mcpReq.envelope?.[LOG_LEVEL_META_KEY as never] as LoggingLevel | undefined;
      return work(legacyExtra(context)).catch((error: unknown) => {
        throw error instanceof JsonRpcError ? toProtocolError(sdk, error) : error;
      });
    };
    /** A call that may take rounds (SEP-2322): the retry's answers and opened state in, an input-required result with a sealed state out. */
    const answerRounds = <T>(
      context: ServerContext,
      target: string,
      work: (extra: McpToolContext['extra'], round: McpCallRound) => Promise<T | McpInputRequired>,
    ): Promise<T | InputRequiredResult> =>
      answer(context, async (extra) => {
        const round: McpCallRound = {
          clientCapabilities: (context.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] ??
            {}) as McpCallRound['clientCapabilities'],
          inputResponses: context.mcpReq.inputResponses,
          requestState: await seal.open(target, context.mcpReq.requestState(), context),
        };
        const result = await work(extra, round);
        if (!isInputRequired(result)) {
          return result;
        }
        const requestState = result.requestState === undefined ? undefined : await seal.seal(target, result.requestState, context);
        return sdk.server.inputRequired({ inputRequests: result.inputRequests as never, requestState });
      });
    server.setRequestHandler('tools/list', () => ({ tools: catalog().tools as never, ...hint }));
    server.setRequestHandler('tools/call', (request, context) =>
      answerRounds(
        context,
        `tools/call ${request.params.name}`,
        (extra, round) => this.calls.handle(session, request.params, extra, round) as Promise<CallToolResult | McpInputRequired>,
      ),
    );
    if (tasks) {
      const taskRequest = (context: ServerContext): ModernTaskRequest => ({
        session,
        principal,
        capabilities: context.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as ModernTaskRequest['capabilities'],
        extra: legacyExtra(context),
        inputResponses: context.mcpReq.inputResponses,
      });
      const { get, update, cancel } = MODERN_TASK_PARAMS;
      server.setRequestHandler('tasks/get', { params: get }, (params, context) =>
        answer(context, () => this.taskMethods.get('tasks/get', params, taskRequest(context))),
      );
      server.setRequestHandler('tasks/update', { params: update }, (params, context) =>
        answer(context, () => this.taskMethods.update('tasks/update', params, taskRequest(context))),
      );
      server.setRequestHandler('tasks/cancel', { params: cancel }, (params, context) =>
        answer(context, () => this.taskMethods.cancel('tasks/cancel', params, taskRequest(context))),
      );
    }
    if (capabilities.prompts) {
      server.setRequestHandler('prompts/list', () => ({ prompts: catalog().prompts as never, ...hint }));
      server.setRequestHandler('prompts/get', (request, context) =>
        answerRounds(context, `prompts/get ${request.params.name}`, (extra, round) =>
          this.primitiveCalls.getPrompt(session, request.params, extra, round),
        ),
      );
    }
    if (capabilities.resources) {
      server.setRequestHandler('resources/list', () => ({ resources: catalog().resources, ...hint }));
      server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: catalog().resourceTemplates, ...hint }));
      server.setRequestHandler('resources/read', (request, context) =>
        answerRounds(context, `resources/read ${request.params.uri}`, (extra, round) =>
          this.primitiveCalls.readResource(session, request.params.uri, extra, round),
        ),
      );
    }
    if (capabilities.completions) {
      server.setRequestHandler('completion/complete', (request, context) =>
        answer(context, () =>
          this.primitiveCalls.complete(session, request.params.ref, request.params.argument, request.params.context?.arguments),
        ),
      );
    }
    return server;
  }
}

/**
 * A JSON-RPC error as 2026-07-28 words it: an unknown resource is -32602 with its URI
 * (SEP-2164), a missing client capability -32021 (HTTP 400), the rest as they are.
 */
function toProtocolError(sdk: ModernSdk, error: JsonRpcError): Error {
  if (error.code === MCP_RESOURCE_NOT_FOUND_CODE) {
    return new sdk.server.ResourceNotFoundError((error.data as { uri: string }).uri, error.message);
  }
  if (error.code === MCP_MISSING_CLIENT_CAPABILITY_CODE) {
    return new sdk.server.MissingRequiredClientCapabilityError(error.data as never, error.message);
  }
  return new sdk.server.ProtocolError(error.code, error.message, error.data);
}

/**
 * Why a handler cannot send a request to the client in a 2026-07-28 request: the client did not
 * declare the capability it needs (-32021, which ends the call), or it did, but this era
 * replaces such requests with input-required results (SEP-2322): the handler returns
 * `mcpInputRequired(...)` instead.
 */
function serverRequestRefusal(context: ServerContext, method: string): Error {
  const capability = CAPABILITY_OF_INPUT_REQUEST[method as McpInputRequest['method']] as string | undefined;
  const declared = (context.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] ?? {}) as Record<string, unknown>;
  if (capability !== undefined && !(capability in declared)) {
    return new JsonRpcError(MCP_MISSING_CLIENT_CAPABILITY_CODE, messages.missingClientCapability(method, capability), {
      requiredCapabilities: { [capability]: {} },
    });
  }
  return new Error(messages.modernNoServerRequests());
}

/** The SDK v1 request extra the call handlers take, from a 2026-07-28 request's context. */
function legacyExtra(context: ServerContext): McpToolContext['extra'] {
  return {
    signal: context.mcpReq.signal,
    requestId: context.mcpReq.id,
    authInfo: context.http?.authInfo,
    _meta: context.mcpReq._meta,
    sendNotification: (notification: Parameters<ServerContext['mcpReq']['notify']>[0]) => context.mcpReq.notify(notification),
    sendRequest: (request: { method: string }) => Promise.reject(serverRequestRefusal(context, request.method)),
  } as unknown as McpToolContext['extra'];
}
