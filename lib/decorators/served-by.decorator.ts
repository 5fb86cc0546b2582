import { SetMetadata } from '@nestjs/common';

/** Metadata key written by `@ServedBy` on a class. */
export const MCP_SERVER_METADATA = 'nestjs-mcp-fsm:server';

/**
 * Serves a class's tools, prompts and resources on one MCP server of the app, named by its
 * `serverId` (the `name` of its `McpModule.forRoot` unless `serverId` is set), wherever the
 * class is provided. Without it, they are served by the server of the nearest module that
 * imports an `McpModule` (see docs/several-servers.md). A method's own
 * `server` option (`@McpTool({ server })`) overrides it.
 *
 * @example
 * \@Injectable()
 * \@ServedBy('admin')
 * export class AuditTools { ... }
 */
export const ServedBy = (server: string): ClassDecorator => SetMetadata(MCP_SERVER_METADATA, server);
