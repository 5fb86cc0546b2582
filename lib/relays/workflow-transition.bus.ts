import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit, Optional } from '@nestjs/common';
import type { RelayedTransition, TransitionRelay } from './transition-relay.interface.js';

/** Injection token of the optional {@link TransitionRelay} (the module option `transitionRelay`). */
export const TRANSITION_RELAY = Symbol.for('nestjs-mcp-fsm:TransitionRelay');

/** "Instance `storeKey` of `machine` is now in `state`" (`null`: it ended), published after every stored change. */
export interface WorkflowTransitionEvent extends RelayedTransition {
  /** Connection whose call fired it (told in-band, on the call's own response); absent when relayed. */
  origin?: object;
  /** `true` when another process made it and the relay told this one (its state may already be older than the store's). */
  relayed?: boolean;
}

type Listener = (event: WorkflowTransitionEvent) => void;
/** Told that transitions of `machines` (of every machine, when `undefined`) may have been missed. */
type ResyncListener = (machines: readonly string[] | undefined) => void;

/**
 * Carries transitions to every session of this process, so each session whose menu
 * changed is sent `notifications/tools/list_changed`; with a transition relay, also to
 * and from the other processes that share the store.
 */
@Injectable()
export class WorkflowTransitionBus implements OnModuleInit, OnApplicationShutdown {
  private readonly listeners = new Set<Listener>();
  private readonly resyncListeners = new Set<ResyncListener>();

  constructor(@Optional() @Inject(TRANSITION_RELAY) private readonly relay?: TransitionRelay | null) {}

  async onModuleInit(): Promise<void> {
    await this.relay?.start(
      (transition) => this.deliver({ ...transition, relayed: true }),
      () => this.resync(),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
  }

  publish(event: WorkflowTransitionEvent): void {
    this.deliver(event);
    const { machine, storeKey, state } = event;
    this.relay?.publish({ machine, storeKey, state });
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Says that transitions of `machines` (of every machine, when omitted) may have been missed,
   * as when a relay's connection comes back after an outage: every session of this process
   * that follows an instance of them has its menu re-read from the store.
   */
  resync(machines?: readonly string[]): void {
    for (const listener of this.resyncListeners) {
      listener(machines);
    }
  }

  /** Adds a listener of {@link resync}; returns the function that removes it. */
  onResync(listener: ResyncListener): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  private deliver(event: WorkflowTransitionEvent): void {
    for (const listener of this.listeners) {
      listener(event);
    }
  }
}
