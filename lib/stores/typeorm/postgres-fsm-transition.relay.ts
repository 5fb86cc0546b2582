import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import * as messages from '../stores.messages.js';
import type { FsmRelayedTransition, FsmTransitionRelay } from '../fsm-transition-relay.interface.js';

/** The parts of a `pg` pooled client the relay uses. */
interface ListenClient {
  query(sql: string, params?: unknown[]): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  release(error?: Error | boolean): void;
}

/** Options of `PostgresFsmTransitionRelay`. */
export interface PostgresFsmTransitionRelayOptions {
  /** LISTEN/NOTIFY channel; processes that share it see each other's transitions. @default 'mcp_fsm_transitions' */
  channel?: string;
  /** Wait before listening again after the connection was lost, in milliseconds. @default 1000 */
  reconnectMs?: number;
}

const CHANNEL_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Relays transitions between processes through PostgreSQL LISTEN/NOTIFY, on the app's
 * PostgreSQL `DataSource`: one pooled connection listens (for the life of the module), and
 * each transition sends one `NOTIFY` on it after the call committed (not in the call's path).
 * When the connection drops it listens again; notifications sent meanwhile are lost, which
 * only delays a menu refresh (calls stay gated by the store).
 *
 * @example
 * McpModule.forRootAsync({ inject: [DataSource], useFactory: (dataSource: DataSource) => ({
 *   ..., store: new TypeOrmFsmStateStore(dataSource),
 *   transitionRelay: new PostgresFsmTransitionRelay(dataSource) }) })
 */
export class PostgresFsmTransitionRelay implements FsmTransitionRelay {
  private readonly logger = new Logger('McpTransitionRelay');
  private readonly origin = randomUUID();
  private readonly channel: string;
  private readonly reconnectMs: number;
  private client?: ListenClient;
  private listener?: (transition: FsmRelayedTransition) => void;
  private reconnect?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    options: PostgresFsmTransitionRelayOptions = {},
  ) {
    if (dataSource.options.type !== 'postgres') {
      throw new Error(messages.relayNeedsPostgres(dataSource.options.type));
    }
    this.channel = options.channel ?? 'mcp_fsm_transitions';
    if (!CHANNEL_PATTERN.test(this.channel)) {
      throw new Error(messages.relayInvalidChannel(this.channel));
    }
    this.reconnectMs = options.reconnectMs ?? 1000;
  }

  async start(listener: (transition: FsmRelayedTransition) => void): Promise<void> {
    this.listener = listener;
    await this.listen();
  }

  publish(transition: FsmRelayedTransition): void {
    const payload = JSON.stringify({ ...transition, origin: this.origin });
    this.client
      ?.query('SELECT pg_notify($1, $2)', [this.channel, payload])
      .catch((error: unknown) => this.logger.warn(messages.relayPublishFailed(error)));
  }

  async stop(): Promise<void> {
    this.listener = undefined;
    clearTimeout(this.reconnect);
    const client = this.client;
    this.client = undefined;
    if (client) {
      await client.query(`UNLISTEN ${this.channel}`).catch(() => undefined);
      client.release();
    }
  }

  private async listen(): Promise<void> {
    const pool = (this.dataSource.driver as unknown as { master: { connect(): Promise<ListenClient> } }).master;
    const client = await pool.connect();
    client.on('notification', (message) => this.receive(message.payload));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    await client.query(`LISTEN ${this.channel}`);
    this.client = client;
  }

  private receive(payload: string | undefined): void {
    try {
      const { origin, machine, storeKey, state } = JSON.parse(payload ?? '');
      if (origin !== this.origin && typeof storeKey === 'string' && (typeof state === 'string' || state === null)) {
        this.listener?.({ machine, storeKey, state });
      }
    } catch (error) {
      this.logger.warn(messages.relayBadPayload(error));
    }
  }

  private lost(client: ListenClient, error?: Error): void {
    if (this.client !== client) {
      return;
    }
    this.client = undefined;
    client.release(error ?? true);
    this.logger.warn(messages.relayLost(error, this.reconnectMs));
    const retry = () => {
      if (!this.listener) {
        return;
      }
      this.listen().catch(() => {
        this.reconnect = setTimeout(retry, this.reconnectMs).unref();
      });
    };
    this.reconnect = setTimeout(retry, this.reconnectMs).unref();
  }
}
