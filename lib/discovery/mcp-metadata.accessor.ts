import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  MCP_APPROVAL_METADATA,
  MCP_BIND_STATE_METADATA,
  MCP_CONFIRM_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_START_WORKFLOW_METADATA,
  MCP_TOOL_METADATA,
  MCP_WORKFLOW_METADATA,
} from '../mcp.constants.js';
import type { McpBindStateMetadata } from '../decorators/bind-state.decorator.js';
import type { McpApprovalMetadata } from '../decorators/approval.decorator.js';
import type { McpConfirmMetadata } from '../decorators/confirm.decorator.js';
import type { McpPromptOptions } from '../decorators/mcp-prompt.decorator.js';
import type { McpResourceOptions } from '../decorators/mcp-resource.decorator.js';
import type { McpToolOptions } from '../decorators/mcp-tool.decorator.js';
import type { McpStartWorkflowMetadata } from '../decorators/start-workflow.decorator.js';
import type { McpMachineRef } from '../decorators/machine-ref.type.js';
import { MCP_SERVER_METADATA } from '../decorators/served-by.decorator.js';
import { MCP_REQUIRE_METADATA, type McpRequireMetadata } from '../decorators/mcp-require.decorator.js';

type Handler = (...args: unknown[]) => unknown;

/** Reads the module's decorator metadata from provider classes and methods. */
@Injectable()
export class McpMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  getTool(handler: Handler): McpToolOptions | undefined {
    return this.reflector.get(MCP_TOOL_METADATA, handler);
  }

  getPrompt(handler: Handler): McpPromptOptions | undefined {
    return this.reflector.get(MCP_PROMPT_METADATA, handler);
  }

  getResource(handler: Handler): McpResourceOptions | undefined {
    return this.reflector.get(MCP_RESOURCE_METADATA, handler);
  }

  /** The options of the method's `@McpTool`, `@McpPrompt` or `@McpResource`, in that order: what makes it served. */
  getPrimitive(handler: Handler): McpToolOptions | McpPromptOptions | McpResourceOptions | undefined {
    return this.getTool(handler) ?? this.getPrompt(handler) ?? this.getResource(handler);
  }

  getBinding(handler: Handler): McpBindStateMetadata | undefined {
    return this.reflector.get(MCP_BIND_STATE_METADATA, handler);
  }

  getConfirmation(handler: Handler): McpConfirmMetadata | undefined {
    return this.reflector.get(MCP_CONFIRM_METADATA, handler);
  }

  getApproval(handler: Handler): McpApprovalMetadata | undefined {
    return this.reflector.get(MCP_APPROVAL_METADATA, handler);
  }

  getStart(handler: Handler): McpStartWorkflowMetadata | undefined {
    return this.reflector.get(MCP_START_WORKFLOW_METADATA, handler);
  }

  getWorkflow(target: Function): McpMachineRef | undefined {
    return this.reflector.get(MCP_WORKFLOW_METADATA, target);
  }

  /** What `@McpRequire` asks on the class and on the method: `[class, method]`. */
  getRequire(target: Function, handler: Handler): [McpRequireMetadata | undefined, McpRequireMetadata | undefined] {
    return [this.reflector.get(MCP_REQUIRE_METADATA, target), this.reflector.get(MCP_REQUIRE_METADATA, handler)];
  }

  /** The `serverId` a class's `@McpServedBy` names. */
  getServer(target: Function): string | undefined {
    return this.reflector.get(MCP_SERVER_METADATA, target);
  }
}
