/**
 * The moment the server stops waiting for running calls (a graceful shutdown ran out of time, a
 * task was cancelled), as the calls under it see it: its signal, and what runs when it aborts.
 * Its owner makes one per signal (a process has one, the shutdown drain's): one listener serves
 * every call under it, where each call adding and removing its own would cost two `EventTarget`
 * listener changes per round of a call.
 */
export class WorkflowCutoff {
  /** What runs when the signal aborts: the calls under it that may still be abandoned. */
  private readonly waiting = new Set<() => void>();

  constructor(readonly signal: AbortSignal) {
    signal.addEventListener(
      'abort',
      () => {
        for (const abandon of this.waiting) abandon();
        this.waiting.clear();
      },
      { once: true },
    );
  }

  /** Whether the cutoff passed. */
  get aborted(): boolean {
    return this.signal.aborted;
  }

  /** What a call abandoned at the cutoff is answered with. */
  get reason(): unknown {
    return this.signal.reason;
  }

  /** Runs `abandon` when the cutoff comes, until the returned function is called. */
  whenReached(abandon: () => void): () => void {
    this.waiting.add(abandon);
    return () => this.waiting.delete(abandon);
  }
}
