import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { MCP_DEADLINE_METADATA } from '../mcp.constants.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { providerClasses } from './provider-classes.js';

type Method = (...args: unknown[]) => unknown;

/** What the app's decorated handlers served by one server ask of it, read from their metadata before any is built. */
export interface McpHandlerUses {
  /** A tool runs as a task (`@McpTool({ task })`). */
  readonly taskTools: boolean;
  /** A tool waits for a second person (`@McpApproval`). */
  readonly approvals: boolean;
  /** An `@McpApproval` request expires (`expiresAfterMs`). */
  readonly expiringApprovals: boolean;
  /** A method runs with a deadline (`@McpDeadline`). */
  readonly deadlineEffects: boolean;
}

/**
 * Reads the metadata of every provider class's methods, as the explorer will (same classes,
 * same skips), for the handlers `serverId` serves: a handler that names another server
 * (`{ server }` or `@McpServedBy`) is not this one's. Runs while providers are being built, so
 * that a feature nothing uses is never built.
 */
export function handlerUsesOf(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  accessor: McpMetadataAccessor,
  serverId: string,
): McpHandlerUses {
  const uses = { taskTools: false, approvals: false, expiringApprovals: false, deadlineEffects: false };
  const seen = new Set<Function>();
  for (const { metatype } of providerClasses(discovery)) {
    if (seen.has(metatype)) continue;
    seen.add(metatype);
    const classServer = accessor.getServer(metatype);
    for (const name of scanner.getAllMethodNames(metatype.prototype)) {
      const method = metatype.prototype[name] as Method;
      if (Reflect.getMetadata(MCP_DEADLINE_METADATA, method) !== undefined) uses.deadlineEffects = true;
      const tool = accessor.getTool(method);
      if (!tool || (tool.server ?? classServer ?? serverId) !== serverId) continue;
      if (tool.task !== undefined) uses.taskTools = true;
      const approval = accessor.getApproval(method);
      if (approval) {
        uses.approvals = true;
        if (approval.expiresAfterMs !== undefined) uses.expiringApprovals = true;
      }
    }
  }
  return uses;
}
