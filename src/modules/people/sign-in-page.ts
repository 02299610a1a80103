import { escapeHtml } from '../mail/compose.ts';

/**
 * The page a sign-in or invitation link opens: one button that posts the
 * token. Opening the page changes nothing, so a mail scanner that fetches the
 * link does not use it up.
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
<form method="post" action="/app/sign-in">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
}
