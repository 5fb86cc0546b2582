import type { LoggerService } from '@nestjs/common';

/** One line a {@link RecordingLogger} received. */
export interface LoggedLine {
  level: 'log' | 'warn' | 'error' | 'debug' | 'verbose' | 'fatal';
  message: string;
}

/** A Nest logger that keeps what it is told (install it with `Logger.overrideLogger`). */
export class RecordingLogger implements LoggerService {
  readonly lines: LoggedLine[] = [];

  log(message: string): void {
    this.lines.push({ level: 'log', message });
  }

  warn(message: string): void {
    this.lines.push({ level: 'warn', message });
  }

  error(message: string): void {
    this.lines.push({ level: 'error', message });
  }

  debug(message: string): void {
    this.lines.push({ level: 'debug', message });
  }

  verbose(message: string): void {
    this.lines.push({ level: 'verbose', message });
  }

  fatal(message: string): void {
    this.lines.push({ level: 'fatal', message });
  }

  /** The messages logged at `level` that match `pattern`. */
  matching(level: LoggedLine['level'], pattern: RegExp): string[] {
    return this.lines.filter((line) => line.level === level && pattern.test(line.message)).map((line) => line.message);
  }
}
