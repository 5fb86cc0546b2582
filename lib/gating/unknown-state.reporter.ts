import { Injectable, Logger } from '@nestjs/common';
import * as messages from './gating.messages.js';

const MAX_REPORTED = 1_000;

/**
 * Logs, once per machine and state, that instances are stored in a state the machine does
 * not have (a state renamed or removed since they were stored). The gate refuses their
 * calls and menus leave them out; this tells the operator which state to migrate.
 */
@Injectable()
export class UnknownStateReporter {
  private readonly logger = new Logger('McpGate');
  private readonly reported = new Set<string>();

  report(machine: string, state: string, storeKey: string): void {
    const key = JSON.stringify([machine, state]);
    if (this.reported.has(key) || this.reported.size >= MAX_REPORTED) {
      return;
    }
    this.reported.add(key);
    this.logger.warn(messages.unknownStateLogged(machine, state, storeKey));
  }
}
