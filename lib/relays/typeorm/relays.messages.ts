/** Messages of the outbox transition relay, worded once (operators and developers read them). */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Bootstrap error: the outbox table is missing (its migration was not run) or the database cannot be read. */
export const outboxSchemaNotReady = (table: string, error: unknown): string =>
  `OutboxTransitionRelay: table ${table} is not ready (${reasonOf(error)}). Run the migrations CreateMcpFsmOutbox1764720000000 and AddMcpFsmOutboxReply1765584000000 (createOutboxMigration and createOutboxReplyMigration for a custom table name).`;

/** Log line (once per outage): polling the outbox failed; the relay keeps polling. */
export const outboxPollFailed = (table: string, error: unknown, retryMs: number): string =>
  `Transition relay cannot poll ${table} (${reasonOf(error)}); trying again every ${retryMs} ms.`;

/** Log line: polling the outbox works again after an outage. */
export const outboxPollRecovered = (table: string): string => `Transition relay polls ${table} again.`;

/** Health: the outbox relay was never started, or was stopped. */
export const outboxNotPolling = (): string => 'not polling (not started, or stopped)';

/** Health: the last poll of the outbox failed. */
export const outboxPollFailing = (table: string, error: unknown): string => `cannot poll ${table} (${reasonOf(error)})`;
