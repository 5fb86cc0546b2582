import { ConsoleLogger } from '@nestjs/common';

/**
 * Nest's `ConsoleLogger`, writing every level to stderr. On stdio, stdout carries the MCP
 * protocol: a log line there reaches the host as invalid JSON. Hosts keep a server's stderr
 * in their MCP logs.
 *
 * @example
 * const app = await NestFactory.createApplicationContext(AppModule, { logger: new McpStderrLogger() });
 */
export class McpStderrLogger extends ConsoleLogger {
  protected override printMessages(
    ...[messages, context, logLevel, , errorStack, params]: Parameters<ConsoleLogger['printMessages']>
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack, params);
  }
}
