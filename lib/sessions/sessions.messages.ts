import { cutSessionId } from '../client-input/client-input.echo.js';
import { reasonOf } from '../gating/gating.messages.js';

/** What an operator reads about sessions (following, notifying, sweeping, closing): worded once. */

/** Log line: a list_changed notification could not be sent. */
export const notifyFailed = (session: string | undefined, error: unknown): string =>
  `Could not send list_changed to session ${session === undefined ? '(stdio)' : cutSessionId(session)}: ${reasonOf(error)}`;

/** Log line: the session store could not record a handle the session started or stopped following. */
export const followsNotStored = (session: string, error: unknown): string =>
  `Could not store the handles session ${cutSessionId(session)} follows (other processes learn them when it uses them again): ${reasonOf(error)}`;

/** Log line: the session store could not say which handles a session follows (its lists show those this process knows). */
export const followsNotRead = (session: string, error: unknown): string =>
  `Could not read the handles session ${cutSessionId(session)} follows from the session store; listing those this process knows: ${reasonOf(error)}`;

/** Log line: the session store could not say which sessions follow an instance (those of this process that know it are told). */
export const followersNotRead = (error: unknown): string =>
  `Could not read from the session store which sessions follow a changed instance; telling those this process knows: ${reasonOf(error)}`;

/** Log line: a closed session's instances could not be deleted (they expire with the store). */
export const forgetFailed = (error: unknown): string => `Could not delete the workflow instances of closed sessions: ${reasonOf(error)}`;

/** Log line: the menus of this process's sessions were re-read after transitions may have been missed (a relay reconnected). */
export const menusRechecked = (sessions: number, changed: number): string =>
  `Transitions may have been missed (the transition relay reconnected): re-read the menus of ${sessions} session${sessions === 1 ? '' : 's'}; ${changed} changed and ${changed === 1 ? 'was' : 'were'} sent list_changed.`;

/** Log line: re-reading the sessions' menus failed; the rest converge on their next list. */
export const recheckFailed = (done: number, error: unknown): string =>
  `Could not re-read the menus of this process's sessions after the transition relay reconnected (${done} done): ${reasonOf(error)}. The others are corrected by their client's next list.`;

/** Log line: a sweep of ended sessions or old events failed (the next one retries). */
export const sweepFailed = (error: unknown): string => `Could not sweep idle sessions: ${reasonOf(error)}`;

/** Log line: closing an idle session failed. */
export const closeFailed = (session: string, error: unknown): string =>
  `Could not close idle session ${cutSessionId(session)}: ${reasonOf(error)}`;
