import { MAX_ECHO_LENGTH } from './client-input.limits.js';

/**
 * A value from outside the app (a header, an argument, a stored state) as an error text or a
 * log line repeats it: its first {@link MAX_ECHO_LENGTH} characters, then an ellipsis when it
 * was longer, so a client cannot make the server send back or log what it sent at any size.
 */
export function echo(value: unknown): string {
  const text = String(value);
  if (text.length <= MAX_ECHO_LENGTH) {
    return text;
  }
  // Never leave half of a surrogate pair at the cut.
  const end = /[\uD800-\uDBFF]/.test(text[MAX_ECHO_LENGTH - 1]) ? MAX_ECHO_LENGTH - 1 : MAX_ECHO_LENGTH;
  return `${text.slice(0, end)}…`;
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
