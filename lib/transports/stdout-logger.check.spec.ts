import { ConsoleLogger, Logger, type LoggerService } from '@nestjs/common';
import { McpStderrLogger } from './mcp-stderr.logger.js';
import { applicationLogsToStdout } from './stdout-logger.check.js';

/** A console logger that only changes the format: it still prints through Nest's own stream choice. */
class PrefixedLogger extends ConsoleLogger {
  protected override formatMessage(...args: Parameters<ConsoleLogger['formatMessage']>): string {
    return `app ${super.formatMessage(...args)}`;
  }
}

/** A logger of another kind (pino, winston adapters): where it writes is its own business. */
const otherLogger: LoggerService = { log: () => undefined, error: () => undefined, warn: () => undefined };

describe('applicationLogsToStdout', () => {
  afterEach(() => {
    Logger.overrideLogger(new ConsoleLogger());
  });

  it("is true for Nest's default logger, left as it is", () => {
    expect(applicationLogsToStdout()).toBe(true);
  });

  it.each<[string, boolean, LoggerService | false]>([
    ['a ConsoleLogger', true, new ConsoleLogger()],
    ['a ConsoleLogger that prints with console.log', true, new ConsoleLogger({ forceConsole: true })],
    ['a ConsoleLogger subclass that only formats', true, new PrefixedLogger()],
    ['a ConsoleLogger limited to error and fatal (stderr levels)', false, new ConsoleLogger({ logLevels: ['error', 'fatal'] })],
    ['McpStderrLogger', false, new McpStderrLogger()],
    ['logger: false', false, false],
    ['a logger of another kind', false, otherLogger],
  ])('with %s: %s', (_name, expected, logger) => {
    Logger.overrideLogger(logger);
    expect(applicationLogsToStdout()).toBe(expected);
  });
});
