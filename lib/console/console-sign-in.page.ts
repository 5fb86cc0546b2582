import { signInIntro, signInTitle } from './console.messages.js';
import { escapeHtml } from './console-html.js';
import { renderPage } from './console-page.shell.js';

/** What the sign-in page shows: where it posts, its CSRF token, and why the last try failed. */
interface ConsoleSignInView {
  root: string;
  csrf: string;
  /** Why the token was refused (never the token). */
  error?: string;
  /** Whether this browser is signed in now. */
  signedIn: boolean;
  /** How long a sign-in lasts at most (`console.signInMaxAgeMs`). */
  maxAgeMs: number;
}

/**
 * The sign-in form: a bearer token pasted into a password field (not autocompleted, never
 * echoed back), posted with the CSRF token to `<root>/sign-in`; and, when signed in, the
 * sign-out form.
 */
export function renderSignInPage(view: ConsoleSignInView): string {
  const action = `${view.root}/sign-in`;
  const main = `<h1>${escapeHtml(signInTitle())}</h1>
<p>${escapeHtml(signInIntro(view.maxAgeMs))}</p>
${view.error ? `<p class="notice" role="alert" id="sign-in-error">${escapeHtml(view.error)}</p>` : ''}
<form class="sign-in" method="post" action="${escapeHtml(action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="sign-in-token">Bearer token<input id="sign-in-token" name="token" type="password" required autocomplete="off" spellcheck="false" maxlength="3800"></label>
<button type="submit">Sign in</button>
</form>`;
  return renderPage({
    title: signInTitle(),
    root: view.root,
    kind: 'error',
    main,
    nav: { inbox: false, signOut: view.signedIn ? { root: view.root, csrf: view.csrf } : undefined },
  });
}
