import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { eventually } from './http-client.js';
import type { RelayedTransition, TransitionRelay } from '../../lib/relays/transition-relay.interface.js';
import { RecordingLogger } from './recording-logger.js';

/** A payment transition as the relays carry it. */
export const paymentTransition = (storeKey: string, state: string | null = 'captured'): RelayedTransition => ({
  machine: 'payment',
  storeKey,
  state,
});

/** A started relay and the transitions the other relays sent it. */
export interface RelayReceiver<R extends TransitionRelay = TransitionRelay> {
  relay: R;
  received: RelayedTransition[];
}

/** Checks that `a` hears what `b` publishes and `b` what `a` publishes, neither what it published itself. */
export async function expectEachHearsTheOther(a: RelayReceiver, b: RelayReceiver): Promise<void> {
  a.relay.publish(paymentTransition('payment:1'));
  await eventually(() => b.received.length === 1);
  b.relay.publish(paymentTransition('payment:2', null));
  await eventually(() => a.received.length === 1);
  expect(a.received).toEqual([paymentTransition('payment:2', null)]);
  expect(b.received).toEqual([paymentTransition('payment:1')]);
}

/**
 * What one relay test starts and opens, for `close` to stop and destroy, and the lines it logs
 * (its {@link RecordingLogger} becomes Nest's logger when the bed is made).
 */
export class RelayTestBed {
  readonly relays: TransitionRelay[] = [];
  readonly dataSources: DataSource[] = [];
  readonly logs = new RecordingLogger();

  constructor() {
    Logger.overrideLogger(this.logs);
  }

  /** Starts `relay`, keeping the transitions it hands over. */
  async receiver<R extends TransitionRelay>(relay: R): Promise<RelayReceiver<R>> {
    const received: RelayedTransition[] = [];
    await relay.start((relayed) => received.push(relayed));
    this.relays.push(relay);
    return { relay, received };
  }

  /** Stops the relays, then destroys the DataSources; each only once, so a test may close early. */
  async close(): Promise<void> {
    await Promise.all(this.relays.splice(0).map((relay) => relay.stop()));
    await Promise.all(this.dataSources.splice(0).map((dataSource) => dataSource.destroy()));
  }
}
