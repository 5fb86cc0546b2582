import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { MCP_SHUTDOWN_JSONRPC_CODE } from '../results/json-rpc.codes.js';
import { MCP_HTTP_OPTIONS, type McpResolvedHttpOptions } from '../server/http-options.interface.js';
import { WorkflowCutoff } from '../gating/workflow-cutoff.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import * as messages from './protocol.messages.js';

/**
 * How long the drain waits, once `drainMs` ran out, for the answers of the abandoned calls and
 * for commits that had begun (each bounded by the store's own time limit).
 */
const SETTLE_MS = 5000;

/**
 * Graceful shutdown of the MCP requests of this process, run by Nest's `onModuleDestroy`
 * (before `beforeApplicationShutdown`, where the sessions' streams close, and before the
 * listener closes): the HTTP transport refuses new requests, and requests in flight get
 * `transports.http.drainMs` to finish and deliver their results. Then {@link calls} aborts:
 * calls still running are abandoned (never committed, answered with a JSON-RPC error), and the
 * drain waits a little longer for those answers and for commits that had begun.
 */
@Injectable()
export class McpShutdownDrain implements OnModuleDestroy {
  private readonly logger = new Logger('McpShutdown');
  private readonly cutoff = new AbortController();
  private inFlight = 0;
  private draining?: Promise<void>;
  /** Called when the last request in flight ends, while the drain waits for it. */
  private onIdle?: () => void;
  private readonly ended = (): void => {
    this.inFlight -= 1;
    if (this.inFlight === 0) this.onIdle?.();
  };

  constructor(@Inject(MCP_HTTP_OPTIONS) private readonly http: McpResolvedHttpOptions | null) {}

  /** Whether the process is shutting down: new requests are refused. */
  get closing(): boolean {
    return this.draining !== undefined;
  }

  /** The cutoff of every call of the process: it comes when the drain ran out; its reason is the {@link JsonRpcError} an abandoned call answers with. */
  readonly calls = new WorkflowCutoff(this.cutoff.signal);

  /** Counts a request as in flight until its response ends or its connection closes. */
  track(response: ServerResponse): void {
    this.inFlight += 1;
    response.once('close', this.ended);
  }

  onModuleDestroy(): Promise<void> {
    this.draining ??= this.drain();
    return this.draining;
  }

  private async drain(): Promise<void> {
    const http = this.http;
    if (!http || this.inFlight === 0) {
      return;
    }
    this.logger.log(messages.drainStarted(this.inFlight, http.drainMs));
    if (await this.idleWithin(http.drainMs)) {
      return;
    }
    this.logger.warn(messages.drainRanOut(this.inFlight, http.drainMs));
    this.cutoff.abort(new JsonRpcError(MCP_SHUTDOWN_JSONRPC_CODE, messages.callAbandoned(http.drainMs)));
    if (!(await this.idleWithin(SETTLE_MS))) {
      this.logger.warn(messages.drainUnanswered(this.inFlight));
    }
  }

  /** Whether nothing is in flight within `ms`. */
  private idleWithin(ms: number): Promise<boolean> {
    if (this.inFlight === 0) {
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.onIdle = undefined;
        resolve(false);
      }, ms);
      this.onIdle = () => {
        clearTimeout(timer);
        this.onIdle = undefined;
        resolve(true);
      };
    });
  }
}
