/** Messages of deadlines (durable timers of `after` transitions), worded once. */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Bootstrap error: a machine has `after` transitions and the store keeps no timers. */
export const deadlinesNeedTimerStore = (store: string, machines: readonly string[]): string =>
  `McpModule: machine${machines.length > 1 ? 's' : ''} ${machines.map((machine) => `"${machine}"`).join(', ')} ha${machines.length > 1 ? 've' : 's'} deadlines ("after" transitions, or an @McpApproval with expiresAfterMs), and the store ${store} keeps no timers (it implements no FsmTimerStore). Use InMemoryFsmStateStore or TypeOrmFsmStateStore.`;

/** Bootstrap error: `@McpDeadline` names a machine the module does not run. */
export const deadlineUnknownMachine = (source: string, machine: string): string =>
  `@McpDeadline on ${source}: machine "${machine}" is not one of the module's machines.`;

/** Bootstrap error: `@McpDeadline` names a state without `after` transitions. */
export const deadlineUnknownState = (source: string, machine: string, state: string, states: readonly string[]): string =>
  `@McpDeadline on ${source}: state "${state}" of machine "${machine}" has no "after" transitions (those that do: ${states.length ? states.join(', ') : 'none'}).`;

/** Bootstrap error: two methods declare the effect of one state's deadlines. */
export const deadlineDeclaredTwice = (machine: string, state: string, first: string, second: string): string =>
  `@McpDeadline: the deadlines of state "${state}" of machine "${machine}" have two effects, ${first} and ${second}; keep one.`;

/** Log line: a timer's firing failed (its effect threw, or the store did); it is retried at `retryAt`. */
export const deadlineFailed = (timer: string, key: string, attempt: number, retryAt: number, error: unknown): string =>
  `Deadline ${timer} of ${key} failed (attempt ${attempt}: ${reasonOf(error)}); retried at ${new Date(retryAt).toISOString()}.`;

/** Log line: a timer failed its last attempt and is dropped. */
export const deadlineGaveUp = (timer: string, key: string, attempts: number, error: unknown): string =>
  `Deadline ${timer} of ${key} failed ${attempts} times (last: ${reasonOf(error)}); dropped: the instance stays where it is.`;

/** Log line: a poll of the scheduler failed. */
export const deadlinePollFailed = (error: unknown, retryMs: number): string =>
  `Polling due deadlines failed (${reasonOf(error)}); tried again in ${retryMs} ms.`;
