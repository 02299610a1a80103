import { createHash } from 'node:crypto';
import { escapeHtml } from '../mail/compose.ts';

/**
 * Posts the page's form as soon as a browser runs the page, so a link opens the
 * dashboard signed in with no click; the button stays for a browser without scripts.
 */
export const SIGN_IN_SCRIPT = 'document.forms[0].submit()';
/** The page's policy allows that one inline script by its hash, and nothing else. */
export const SIGN_IN_POLICY = [
  "default-src 'none'",
  `script-src 'sha256-${createHash('sha256').update(SIGN_IN_SCRIPT).digest('base64')}'`,
  "style-src 'unsafe-inline'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** A link cut off before its token (or a bookmark of the page) submits nothing: it would only fail. */
const NO_TOKEN = '<p>This sign-in link is incomplete. <a href="/app">Ask for a new one</a>.</p>';

function withToken(token: string): string {
  return `<form method="post" action="/app/sign-in">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">Sign in</button>
</form>
<script>${SIGN_IN_SCRIPT}</script>`;
}

/**
 * The page a sign-in or invitation link opens: a form with one button that posts
 * the token, submitted at once by the page's script. Fetching the page changes
 * nothing, so a mail scanner that only reads the link's HTML does not use it up;
 * a browser that opens it is signed in (docs/people.md, "Opening a link").
 */
export function signInPage(token: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Sign in to Parley</title>
<style>
body { font: 16px/1.5 -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; display: grid; place-items: center; min-height: 100vh; margin: 0; background: #f6f8fa; color: #1f2328; }
main { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 32px; max-width: 360px; text-align: center; }
button { font: inherit; padding: 10px 20px; border: 0; border-radius: 6px; background: #1f6feb; color: #fff; cursor: pointer; }
</style>
</head>
<body>
<main>
<h1>Sign in to Parley</h1>
${token === '' ? NO_TOKEN : withToken(token)}
</main>
</body>
</html>
`;
}
