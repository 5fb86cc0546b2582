import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { relayBadPayload } from '../stores/stores.messages.js';
import { DEFAULT_RELAY_WARN_INTERVAL_MS, RelayPublishFailures } from './relay-publish.failures.js';
import { handReply } from './relayed-reply.parse.js';
import type { RelayedReply, SessionReplyRelay } from './session-reply-relay.interface.js';
import type { RelayedTransition, TransitionRelay, TransitionRelayHealth } from './transition-relay.interface.js';

/**
 * What every relay of this package keeps: the id of its process (it skips its own messages),
 * the listeners that `start` and `onReply` hand it, and its publishes in flight, whose
 * failures are logged at most once per `warnIntervalMs`.
 */
export abstract class BaseTransitionRelay implements TransitionRelay, SessionReplyRelay {
  /** Largest reply it carries, in bytes of JSON. */
  abstract readonly maxReplyBytes: number;
  protected readonly logger = new Logger('McpTransitionRelay');
  protected readonly origin = randomUUID();
  protected readonly failures: RelayPublishFailures;
  protected listener?: (transition: RelayedTransition) => void;
  protected resync?: () => void;
  protected replyListener?: (reply: RelayedReply) => void;

  /** Throws, naming `component`, when `warnIntervalMs` is not a positive whole number. */
  protected constructor(component: string, warnIntervalMs = DEFAULT_RELAY_WARN_INTERVAL_MS) {
    this.failures = new RelayPublishFailures(component, this.logger, warnIntervalMs);
  }

  abstract start(listener: (transition: RelayedTransition) => void, resync?: () => void): Promise<void>;

  abstract publish(transition: RelayedTransition): void;

  abstract sendReply(reply: RelayedReply): Promise<void>;

  abstract health(): TransitionRelayHealth;

  abstract stop(): Promise<void>;

  onReply(listener: (reply: RelayedReply) => void): void {
    this.replyListener = listener;
  }

  /** Keeps the listeners `start` was given. */
  protected attach(listener: (transition: RelayedTransition) => void, resync?: () => void): void {
    this.listener = listener;
    this.resync = resync;
  }

  /** Forgets the listeners, so that nothing more is handed on while the relay stops. */
  protected detach(): void {
    this.listener = undefined;
    this.resync = undefined;
  }

  /** The payload of a pub/sub message that carries `transition` from this process. */
  protected transitionMessage(transition: RelayedTransition): string {
    return JSON.stringify({ ...transition, origin: this.origin });
  }

  /**
   * Hands a pub/sub message of another process to the listener of its kind (a transition, or
   * a reply); a message of this process is skipped, a malformed one logged.
   */
  protected receive(payload: string): void {
    try {
      const parsed = JSON.parse(payload);
      const { origin, machine, storeKey, state } = parsed;
      if (origin === this.origin || handReply(parsed, this.replyListener)) {
        return;
      }
      if (typeof machine === 'string' && typeof storeKey === 'string' && (typeof state === 'string' || state === null)) {
        this.listener?.({ machine, storeKey, state });
      }
    } catch (error) {
      this.logger.warn(relayBadPayload(error));
    }
  }
}
