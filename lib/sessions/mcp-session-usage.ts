import type { ServerResponse } from 'node:http';

/**
 * How a live stateful HTTP session is used, as admission sees it: from which client address,
 * since when, whether it was used, and how many of its requests are being answered now.
 */
export class McpSessionUsage {
  private inFlight = 0;

  constructor(
    /** The client address that opened it, or resumed it in this process. */
    readonly address: string,
    /** Epoch ms of its `initialize` (the record's `createdAt`). */
    readonly openedAt: number,
    /** Whether a request other than `initialize` and `notifications/initialized` reached it, on any process. */
    public used: boolean,
  ) {}

  /** Whether one of its requests is being answered now: a busy session is never evicted. */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Counts a request as being answered until its HTTP response closes (answered, or the client went away). */
  track(response: ServerResponse): void {
    this.inFlight += 1;
    response.once('close', () => (this.inFlight -= 1));
  }
}
