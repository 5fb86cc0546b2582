import { ConsoleLogger, Logger, type LoggerService, type LogLevel } from '@nestjs/common';

/** The levels Nest's `ConsoleLogger` prints to stdout (`error` and `fatal` go to stderr). */
const STDOUT_LEVELS: readonly LogLevel[] = ['log', 'warn', 'debug', 'verbose'];

/** Nest's static `Logger`, read for the logger the application configured. */
class ApplicationLogger extends Logger {
  /** What Nest's `Logger` forwards to: the app's logger or Nest's default one; none with `logger: false`. */
  static current(): LoggerService | undefined {
    return Logger.staticInstanceRef;
  }
}

/**
 * Whether the application's logger writes to stdout: a `ConsoleLogger` that prints through
 * Nest's own `printMessages` (the default logger, `new ConsoleLogger()`, or a subclass that
 * only changes the format) with a stdout level enabled. Loggers of other kinds are not judged.
 */
export function applicationLogsToStdout(): boolean {
  const logger = ApplicationLogger.current();
  return (
    logger instanceof ConsoleLogger &&
    logger['printMessages'] === ConsoleLogger.prototype['printMessages'] &&
    STDOUT_LEVELS.some((level) => logger.isLevelEnabled(level))
  );
}
