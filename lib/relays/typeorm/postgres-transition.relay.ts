import type { DataSource } from 'typeorm';
import { checkNumericOption, timerMs } from '../../checks/numeric-option.check.js';
import * as messages from '../../stores/stores.messages.js';
import { BaseTransitionRelay } from '../base-transition.relay.js';
import type { RelayedTransition, TransitionRelayHealth } from '../transition-relay.interface.js';
import { replyMessage } from '../relayed-reply.parse.js';
import type { RelayedReply } from '../session-reply-relay.interface.js';
import { replyRelayNotStarted } from '../session-reply.messages.js';

/** The parts of a `pg` pooled client the relay uses. */
interface ListenClient {
  query(sql: string, params?: unknown[]): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  release(error?: Error | boolean): void;
}

/** Options of `PostgresTransitionRelay`. */
export interface PostgresTransitionRelayOptions {
  /** LISTEN/NOTIFY channel; processes that share it see each other's transitions. @default 'mcp_fsm_transitions' */
  channel?: string;
  /** Wait before listening again after the connection was lost, in milliseconds. @default 1000 */
  reconnectMs?: number;
  /**
   * While the database is away every transition fails to publish: the first failure is logged
   * at once, the next ones once per this interval, with their count.
   * @default 10_000
   */
  warnIntervalMs?: number;
}

const CHANNEL_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Largest reply a NOTIFY carries: its payload must be shorter than 8000 bytes, the envelope included. */
const MAX_NOTIFY_REPLY_BYTES = 7_900;

/**
 * Relays transitions between processes through PostgreSQL LISTEN/NOTIFY, on the app's
 * PostgreSQL `DataSource`: one pooled connection listens (for the life of the module), and
 * each transition sends one `NOTIFY` on it after the call committed (not in the call's path).
 * When the connection drops it listens again; notifications sent meanwhile are lost, so once
 * it listens again the process re-reads the menus of its sessions (calls stay gated by the
 * store all along). It also carries, on the same channel, the answers of clients to
 * server-to-client requests that reached another process than the one that asked (at most
 * 7,900 bytes each: NOTIFY's payload limit).
 *
 * @example
 * McpModule.forRootAsync({ inject: [DataSource], useFactory: (dataSource: DataSource) => ({
 *   ..., store: new TypeOrmFsmStateStore(dataSource),
 *   transitionRelay: new PostgresTransitionRelay(dataSource) }) })
 */
export class PostgresTransitionRelay extends BaseTransitionRelay {
  /** Largest reply it carries, in bytes of JSON: a NOTIFY payload is shorter than 8000 bytes. */
  readonly maxReplyBytes = MAX_NOTIFY_REPLY_BYTES;
  private readonly channel: string;
  private readonly reconnectMs: number;
  private client?: ListenClient;
  private reconnect?: NodeJS.Timeout;
  /** Why the relay does not listen now, once it lost its connection. */
  private lostReason?: string;

  constructor(
    private readonly dataSource: DataSource,
    options: PostgresTransitionRelayOptions = {},
  ) {
    if (typeof dataSource !== 'object' || dataSource === null || typeof dataSource.options !== 'object') {
      throw new Error(messages.storeNeedsDataSource(PostgresTransitionRelay.name, dataSource));
    }
    if (dataSource.options.type !== 'postgres') {
      throw new Error(messages.relayNeedsPostgres(dataSource.options.type));
    }
    const channel = options.channel ?? 'mcp_fsm_transitions';
    if (!CHANNEL_PATTERN.test(channel)) {
      throw new Error(messages.relayInvalidChannel(channel));
    }
    super(PostgresTransitionRelay.name, options.warnIntervalMs);
    this.channel = channel;
    this.reconnectMs = checkNumericOption(PostgresTransitionRelay.name, 'reconnectMs', options.reconnectMs ?? 1000, timerMs());
  }

  /** Listens on the channel; `resync` is called each time it listens again after losing its connection. */
  async start(listener: (transition: RelayedTransition) => void, resync?: () => void): Promise<void> {
    this.attach(listener, resync);
    await this.listen();
  }

  publish(transition: RelayedTransition): void {
    this.client
      ?.query('SELECT pg_notify($1, $2)', [this.channel, this.transitionMessage(transition)])
      .catch((error: unknown) => this.failures.add(error));
  }

  /** Sends the reply with one NOTIFY on the listening connection; rejects while that connection is down. */
  async sendReply(reply: RelayedReply): Promise<void> {
    if (!this.client) {
      throw new Error(replyRelayNotStarted(PostgresTransitionRelay.name));
    }
    await this.client.query('SELECT pg_notify($1, $2)', [this.channel, replyMessage(this.origin, reply)]);
  }

  /** Connected while its LISTEN connection is up. */
  health(): TransitionRelayHealth {
    if (this.client) {
      return { connected: true };
    }
    return { connected: false, reason: this.lostReason ?? messages.relayNotListening() };
  }

  async stop(): Promise<void> {
    this.detach();
    this.failures.stop();
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
    client.on('notification', (message) => this.receive(message.payload ?? ''));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    await client.query(`LISTEN ${this.channel}`);
    this.client = client;
    this.lostReason = undefined;
  }

  private lost(client: ListenClient, error?: Error): void {
    if (this.client !== client) {
      return;
    }
    this.client = undefined;
    this.lostReason = messages.relayLostReason(error);
    client.release(error ?? true);
    this.logger.warn(messages.relayLost(error, this.reconnectMs));
    const retry = () => {
      if (!this.listener) {
        return;
      }
      this.listen().then(
        () => this.resync?.(),
        () => {
          this.reconnect = setTimeout(retry, this.reconnectMs).unref();
        },
      );
    };
    this.reconnect = setTimeout(retry, this.reconnectMs).unref();
  }
}
