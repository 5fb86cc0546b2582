import { Injectable } from '@nestjs/common';

/** "Instance `storeKey` of `machine` is now in `state`", published after every stored transition. */
export interface FsmTransitionEvent {
  machine: string;
  storeKey: string;
  state: string;
  /** Session whose call fired it (told in-band, on the call's own response). */
  origin?: object;
}

type Listener = (event: FsmTransitionEvent) => void;

/**
 * Carries transitions to every session of this process, so each session whose menu
 * changed is sent `notifications/tools/list_changed`.
 */
@Injectable()
export class FsmTransitionBus {
  private readonly listeners = new Set<Listener>();

  publish(event: FsmTransitionEvent): void {
    for (const listener of this.listeners) {
      listener(event);
    }
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
