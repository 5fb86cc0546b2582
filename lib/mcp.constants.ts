/** Metadata key written by `@McpTool` on a method. */
export const MCP_TOOL_METADATA = 'nestjs-mcp-fsm:tool';
/** Metadata key written by `@McpBindState` on a method. */
export const MCP_BIND_STATE_METADATA = 'nestjs-mcp-fsm:bind-state';
/** Metadata key written by `@McpStartWorkflow` on a method. */
export const MCP_START_WORKFLOW_METADATA = 'nestjs-mcp-fsm:start-workflow';
/** Metadata key written by `@McpWorkflow` on a class. */
export const MCP_WORKFLOW_METADATA = 'nestjs-mcp-fsm:workflow';
/** Context type reported by `ExecutionContext.getType()` inside tool handlers. */
export const MCP_CONTEXT_TYPE = 'mcp';
/** `_meta` key of a refusal: `{ code, tool, machine, state, allowedTools }`. */
export const MCP_ERROR_META_KEY = 'nestjs-mcp-fsm/error';
/** `_meta` key of a gated success: `{ machine, state, allowedTools }`. */
export const MCP_STATE_META_KEY = 'nestjs-mcp-fsm/state';
/**
 * `_meta` key of a `tools/call`'s idempotency key (a string of 1 to 255 characters): a call that
 * changes a workflow commits at most once per caller and key, and a repeat answers its first result.
 */
export const MCP_IDEMPOTENCY_KEY_META_KEY = 'nestjs-mcp-fsm/idempotency-key';
/** Metadata key written by `@McpPrompt` on a method. */
export const MCP_PROMPT_METADATA = 'nestjs-mcp-fsm:prompt';
/** Metadata key written by `@McpResource` on a method. */
export const MCP_RESOURCE_METADATA = 'nestjs-mcp-fsm:resource';
/** Metadata key written by `@McpConfirm` on a method. */
export const MCP_CONFIRM_METADATA = 'nestjs-mcp-fsm:confirm';
/** Metadata key written by `@McpApproval` on a method. */
export const MCP_APPROVAL_METADATA = 'nestjs-mcp-fsm:approval';

/** This package's version (the instrumentation scope's version); test/package checks it against package.json. */
export const PACKAGE_VERSION = '0.4.0';

/** Metadata key written by `@McpDeadline` on a method. */
export const MCP_DEADLINE_METADATA = 'nestjs-mcp-fsm:deadline';
