import { SetMetadata } from '@nestjs/common';

/** Metadata key written by `@McpServedBy` on a class. */
export const MCP_SERVER_METADATA = 'nestjs-mcp-fsm:server';

/**
 * Serves a class's tools, prompts and resources on one MCP server of the app, named by its
 * `serverId` (the `name` of its `McpModule.forRoot` unless `serverId` is set), wherever the
 * class is provided. Without it, they are served by the server of the nearest module that
 * imports an `McpModule` (see the README, "Several servers in one app"). A method's own
 * `server` option (`@McpTool({ server })`) overrides it.
 *
 * @example
 * \@Injectable()
 * \@McpServedBy('admin')
 * export class AuditTools { ... }
 */
export const McpServedBy = (server: string): ClassDecorator => SetMetadata(MCP_SERVER_METADATA, server);

/** @deprecated Use {@link McpServedBy}; the old name goes in 0.4. */
export const ServedBy = McpServedBy;
