import type { Redis } from 'ioredis';
import { BaseTransitionRelay } from '../base-transition.relay.js';
import type { RelayedTransition, TransitionRelayHealth } from '../transition-relay.interface.js';
import { replyMessage } from '../relayed-reply.parse.js';
import type { RelayedReply } from '../session-reply-relay.interface.js';
import { maxReplyBytesOf, replyRelayNotStarted } from '../session-reply.messages.js';
import { createRedisClient } from './ioredis.loader.js';
import * as messages from './redis.messages.js';

/** Options of `RedisTransitionRelay`. */
export interface RedisTransitionRelayOptions {
  /** Pub/sub channel; processes that share it see each other's transitions. @default 'nestjs-mcp-fsm:transitions' */
  channel?: string;
  /**
   * While Redis is away every transition fails to publish: the first failure is logged at
   * once, the next ones once per this interval, with their count.
   * @default 10_000
   */
  warnIntervalMs?: number;
  /**
   * Largest answer to a server-to-client request it carries to the process that asked (the
   * JSON length in bytes); a larger one is refused with HTTP 413.
   * @default 65_536
   */
  maxReplyBytes?: number;
}

/** Default pub/sub channel of `RedisTransitionRelay`. */
export const DEFAULT_REDIS_TRANSITION_CHANNEL = 'nestjs-mcp-fsm:transitions';

/**
 * Relays transitions between processes through Redis pub/sub (with the `ioredis` client):
 * each transition is one `PUBLISH` after the call committed (not in the call's path), and a
 * second connection, a duplicate of the first, subscribes to the channel. Given an ioredis
 * client, the relay publishes on it and never closes it; given a URL, it opens (loading the
 * optional peer `ioredis`) and closes both connections itself. ioredis reconnects and
 * subscribes again after a connection loss; messages sent meanwhile are lost, so once the
 * subscriber is back the relay has the process re-read the menus of its sessions (calls stay
 * gated by the store all along). It also carries, on the same channel, the answers of clients
 * to server-to-client requests that reached another process than the one that asked.
 *
 * @example
 * McpModule.forRootAsync({ inject: [DataSource], useFactory: (dataSource: DataSource) => ({
 *   ..., store: new TypeOrmFsmStateStore(dataSource),
 *   transitionRelay: new RedisTransitionRelay(process.env.REDIS_URL!) }) })
 */
export class RedisTransitionRelay extends BaseTransitionRelay {
  /** Largest reply it carries, in bytes of JSON (option `maxReplyBytes`). */
  readonly maxReplyBytes: number;
  private readonly channel: string;
  private publisher?: Redis;
  private subscriber?: Redis;

  constructor(
    private readonly connection: Redis | string,
    options: RedisTransitionRelayOptions = {},
  ) {
    const channel = options.channel ?? DEFAULT_REDIS_TRANSITION_CHANNEL;
    if (!channel) {
      throw new Error(messages.redisInvalidChannel(channel));
    }
    super(RedisTransitionRelay.name, options.warnIntervalMs);
    this.channel = channel;
    this.maxReplyBytes = maxReplyBytesOf(RedisTransitionRelay.name, options.maxReplyBytes);
  }

  /** Connects (when given a URL) and subscribes to the channel; `resync` is called each time the subscriber is back after losing its connection. */
  async start(listener: (transition: RelayedTransition) => void, resync?: () => void): Promise<void> {
    const owned = typeof this.connection === 'string';
    const publisher = typeof this.connection === 'string' ? await createRedisClient(this.connection) : this.connection;
    const subscriber = publisher.duplicate();
    if (owned) this.watch(publisher, 'publisher');
    this.watch(subscriber, 'subscriber');
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.receive(message);
    });
    try {
      await subscriber.subscribe(this.channel);
    } catch (error) {
      subscriber.disconnect();
      if (owned) publisher.disconnect();
      throw error;
    }
    this.attach(listener, resync);
    this.publisher = publisher;
    this.subscriber = subscriber;
  }

  /** Publishes the transition in the background; a failure is logged, never thrown. */
  publish(transition: RelayedTransition): void {
    if (!this.publisher) {
      return;
    }
    this.failures.track(this.publisher.publish(this.channel, this.transitionMessage(transition)));
  }

  /** Publishes the reply on the channel; rejects when Redis does not take it. */
  async sendReply(reply: RelayedReply): Promise<void> {
    if (!this.publisher) {
      throw new Error(replyRelayNotStarted(RedisTransitionRelay.name));
    }
    await this.publisher.publish(this.channel, replyMessage(this.origin, reply));
  }

  /** Connected while both its publisher and its subscriber are ready. */
  health(): TransitionRelayHealth {
    const { publisher, subscriber } = this;
    if (!publisher || !subscriber) {
      return { connected: false, reason: messages.redisNotStarted() };
    }
    for (const [role, client] of [
      ['subscriber', subscriber],
      ['publisher', publisher],
    ] as const) {
      if (client.status !== 'ready') {
        return { connected: false, reason: messages.redisNotReady(role, client.status) };
      }
    }
    return { connected: true };
  }

  /** Waits for the messages in flight (while connected), then closes the subscriber and the connections it opened. */
  async stop(): Promise<void> {
    const { publisher, subscriber } = this;
    this.detach();
    this.publisher = undefined;
    this.subscriber = undefined;
    if (publisher?.status === 'ready') {
      await this.failures.settled();
    }
    subscriber?.disconnect();
    if (publisher && publisher !== this.connection) {
      publisher.disconnect();
    }
    this.failures.stop();
  }

  /**
   * Logs a connection's failures once per outage (an `error` listener also keeps ioredis from
   * printing them). When the subscriber is ready again after its connection closed (ioredis has
   * sent the SUBSCRIBE again by then), what was published meanwhile is lost: resync.
   */
  private watch(client: Redis, role: 'publisher' | 'subscriber'): void {
    let failing = false;
    let closed = false;
    client.on('error', (error: Error) => {
      if (!failing) {
        failing = true;
        this.logger.warn(messages.redisConnectionLost(role, error));
      }
    });
    client.on('close', () => {
      closed = true;
    });
    client.on('ready', () => {
      if (failing) {
        failing = false;
        this.logger.log(messages.redisConnectionBack(role));
      }
      if (closed && role === 'subscriber') {
        closed = false;
        this.resync?.();
      }
    });
  }
}
