import { SetMetadata } from '@nestjs/common';

/** Metadata key written by `@McpServedBy` on a class. */
export const MCP_SERVER_METADATA = 'nestjs-mcp-fsm:server';

/**
 * Serves a class's tools, prompts and resources on one MCP server of the app, named by its
 * `serverId` (the `name` of its `McpModule.forRoot` unless `serverId` is set), wherever the
 * class is provided. With several McpModules every handler names its server this way (or with
 * `{ server }` on its decorator, which overrides this); with one, nothing needs naming.
 *
 * @example
 * \@Injectable()
 * \@McpServedBy('admin')
 * export class AuditTools { ... }
 */
export const McpServedBy = (server: string): ClassDecorator => SetMetadata(MCP_SERVER_METADATA, server);
