import { MAX_ECHO_LENGTH, MAX_ECHOED_ARGUMENTS } from './client-input.limits.js';

/**
 * A value from outside the app (a header, an argument, a stored state) as an error text or a
 * log line repeats it: its first {@link MAX_ECHO_LENGTH} characters, then an ellipsis when it
 * was longer, so a client cannot make the server send back or log what it sent at any size.
 */
export function echo(value: unknown): string {
  return cutText(String(value), MAX_ECHO_LENGTH);
}

/** `text` when it has at most `max` characters, else its first `max` and an ellipsis (never half a surrogate pair). */
export function cutText(text: string, max: number): string {
  if (text.length <= max) {
    return text;
  }
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/**
 * A call's arguments as a record of them keeps them: the first {@link MAX_ECHOED_ARGUMENTS}
 * names (each cut as {@link echo} cuts), each string cut the same way, numbers, booleans and
 * `null` as they are, and any other value (an object, an array) as its JSON text, cut. However
 * much a client sent, what is kept stays within a few kilobytes.
 */
export function echoArguments(args: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args).slice(0, MAX_ECHOED_ARGUMENTS)) {
    kept[echo(name)] = echoArgument(value);
  }
  return kept;
}

function echoArgument(value: unknown): unknown {
  if (value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  if (typeof value === 'string') return echo(value);
  if (typeof value === 'object') return echo(safeJson(value));
  return echo(value);
}

/** JSON text of a client's value; a value JSON cannot write (a cycle, a BigInt) as its string form. */
function safeJson(value: object): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** zod issues as `path: message; path: message`. */
export const formatIssues = (issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string =>
  issues.map((issue) => `${issue.path.length ? echo(issue.path.join('.')) : '(value)'}: ${issue.message}`).join('; ');

/** How many leading characters of a session id a log line keeps: enough to tell sessions apart, not enough to use one. */
const LOGGED_SESSION_ID_LENGTH = 8;

/**
 * A session id as a log line names it: its first {@link LOGGED_SESSION_ID_LENGTH} characters and
 * an ellipsis. Without authentication a session id is the only thing a request needs to act
 * as its session, so a whole one never goes to a log.
 */
export function cutSessionId(id: string | undefined): string {
  if (id === undefined) {
    return '(none)';
  }
  return id.length <= LOGGED_SESSION_ID_LENGTH ? echo(id) : `${echo(id.slice(0, LOGGED_SESSION_ID_LENGTH))}…`;
}
