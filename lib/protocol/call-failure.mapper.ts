import { HttpException, Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes } from 'node:crypto';
import { WorkflowRefusal } from '../gating/workflow-refusal.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import { MCP_ERROR_META_KEY } from '../mcp.constants.js';
import type { McpAccessRefusal } from '../auth/mcp-access.policy.js';
import {
  JSON_RPC_INTERNAL_ERROR,
  JSON_RPC_INVALID_REQUEST,
  MCP_ACCESS_DENIED_CODE,
  MCP_REFUSAL_JSONRPC_CODE,
} from '../results/json-rpc.codes.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import * as messages from './protocol.messages.js';
import { errorMessage, toolErrorResult } from '../results/tool-result.mapper.js';
import { activeTraceId } from '../telemetry/otel-api.loader.js';

const logger = new Logger('McpCall');

/** A failed call as the client may be told it: always as a JSON-RPC error, and as a tool error result where one is allowed. */
interface McpCallFailure {
  /** The JSON-RPC error: what prompts and resources answer, and tools in `refusal: 'jsonrpc'` mode. */
  readonly error: JsonRpcError;
  /** The tool error result; `undefined` for a protocol-level failure, which every call answers as an error. */
  readonly toolResult?: CallToolResult;
  /** Whether it is the gate's refusal. */
  readonly refusal: boolean;
}

/** An id for one failed call, told to its client and written in the log line about it. */
const newErrorId = (): string => randomBytes(6).toString('hex');

/**
 * What a call that threw answers, for tools and primitives alike: a protocol error as is, the
 * gate's refusal with its `data` and an error id (in `_meta` of a tool result), an
 * `HttpException` with its message, anything else as an internal error whose detail only the
 * log gets (under an id the client is told). Refusals and internal errors are logged with their
 * error id and the trace id of the call's span.
 */
export function toCallFailure(definition: McpHandlerDefinition, error: unknown): McpCallFailure {
  if (error instanceof JsonRpcError) {
    return { error, refusal: false };
  }
  if (error instanceof WorkflowRefusal) {
    const errorId = newErrorId();
    const data = { ...error.data, errorId };
    logger.log(messages.callRefused(definition.name, data.code, errorId, activeTraceId()));
    return {
      error: new JsonRpcError(MCP_REFUSAL_JSONRPC_CODE, error.message, data),
      toolResult: toolErrorResult(error.message, { [MCP_ERROR_META_KEY]: data }),
      refusal: true,
    };
  }
  if (error instanceof HttpException) {
    const text = errorMessage(error);
    const code = error.getStatus() >= 500 ? JSON_RPC_INTERNAL_ERROR : JSON_RPC_INVALID_REQUEST;
    return { error: new JsonRpcError(code, text), toolResult: toolErrorResult(text), refusal: false };
  }
  const errorId = newErrorId();
  logger.error(messages.handlerFailed(definition.name, errorId, activeTraceId(), error), error instanceof Error ? error.stack : undefined);
  const text = messages.toolFailed(definition.name, errorId);
  return { error: new JsonRpcError(JSON_RPC_INTERNAL_ERROR, text), toolResult: toolErrorResult(text), refusal: false };
}

/**
 * The JSON-RPC error of a call whose caller lacks what its target requires (`@McpRequire`),
 * where no HTTP 403 answered it first (stdio, or a transport of the app's): the handler and
 * the app's guards never ran.
 */
export function accessRefused(refusal: McpAccessRefusal): JsonRpcError {
  const { name, requiredScopes, missingScopes, missingRoles } = refusal;
  return new JsonRpcError(MCP_ACCESS_DENIED_CODE, refusal.message, { name, requiredScopes, missingScopes, missingRoles });
}
