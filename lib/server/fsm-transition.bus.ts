import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition.js';
import type { FsmRelayedTransition } from './fsm-transition-relay.interface.js';

/** "Instance `storeKey` of `machine` is now in `state`", published after every stored transition. */
export interface FsmTransitionEvent extends FsmRelayedTransition {
  /** Session whose call fired it (told in-band, on the call's own response); absent when relayed. */
  origin?: object;
}

type Listener = (event: FsmTransitionEvent) => void;

/**
 * Carries transitions to every session of this process, so each session whose menu
 * changed is sent `notifications/tools/list_changed`; with a `transitionRelay`, also to
 * and from the other processes that share the store.
 */
@Injectable()
export class FsmTransitionBus implements OnModuleInit, OnApplicationShutdown {
  private readonly listeners = new Set<Listener>();

  constructor(@Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions) {}

  async onModuleInit(): Promise<void> {
    await this.options.transitionRelay?.start((transition) => this.deliver(transition));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.options.transitionRelay?.stop();
  }

  publish(event: FsmTransitionEvent): void {
    this.deliver(event);
    const { machine, storeKey, state } = event;
    this.options.transitionRelay?.publish({ machine, storeKey, state });
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private deliver(event: FsmTransitionEvent): void {
    for (const listener of this.listeners) {
      listener(event);
    }
  }
}
