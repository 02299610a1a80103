/**
 * The client's archive (docs/clients.md, "The archive link"): a keyless page at the
 * service's root, GET /reports/{token}, listing every sent report of that client with
 * its PDF at GET /reports/{token}/{reportId}.pdf, in the client's language. The token
 * is the credential: a rotated or deleted link is 404 at once, also where it is written
 * in a mail already sent. Held reports are not listed until they are sent.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { fingerprint } from '../../platform/crypto.ts';
import type { Language } from '../agents/schemas.ts';
import { escapeHtml } from '../mail/compose.ts';
import { ARCHIVE_PREFIX, languageOr, LINK_TOKEN_PATTERN } from './service.ts';
import * as store from './store.ts';
import { monthName, REPORT_TEXTS } from './texts.ts';

const hidden = { hide: true } as const;
/** Wrong links an address may try in a window before every archive request of it is 429 until the window ends. */
export const ARCHIVE_GUESSES_PER_WINDOW = 10;
export const ARCHIVE_GUESS_WINDOW_SECONDS = 600;
const PDF_NAME = /^(rep_[0-9A-Za-z]{20})\.pdf$/;

export async function clientArchiveRoutes(app: FastifyInstance, ctx: Context): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const guesses = guessCounter(ctx);
  /** The link's client; a wrong link is counted against the address, and an address over its guesses gets 429 for right links too. */
  async function clientOfGuess(ip: string, token: string): Promise<store.Client | undefined> {
    const allowed = await guesses.admitted(ip);
    if (allowed !== true) throw errors.rateLimited(allowed.retryAfterSeconds);
    const client = await clientOfLink(ctx, token);
    if (!client) await guesses.countFailure(ip);
    return client;
  }

  routes.get(`${ARCHIVE_PREFIX}/:token`, { schema: { ...hidden, params: z.strictObject({ token: z.string().max(100) }) } }, async (request, reply) => {
    const client = await clientOfGuess(request.ip, request.params.token);
    if (!client) return gone(reply);
    const language = languageOr(client.language);
    const reports = await store.sentReports(ctx.db, client.id);
    return page(reply, 200, language, REPORT_TEXTS[language].archiveTitle(client.name), archiveBody(language, client.name, request.params.token, reports));
  });

  routes.get(
    `${ARCHIVE_PREFIX}/:token/:file`,
    { schema: { ...hidden, params: z.strictObject({ token: z.string().max(100), file: z.string().max(100) }) } },
    async (request, reply) => {
      const client = await clientOfGuess(request.ip, request.params.token);
      const reportId = PDF_NAME.exec(request.params.file)?.[1];
      const report = client && reportId ? await store.sentReportPdf(ctx.db, client.id, reportId) : undefined;
      if (!report) return gone(reply);
      return privateHeaders(reply)
        .header('content-type', 'application/pdf')
        .header('content-disposition', `inline; filename="report-${report.month}.pdf"`)
        .send(Buffer.from(report.pdf));
    },
  );
}

/**
 * Wrong archive links per client address, in fixed windows, counted where every
 * API process sees them (Redis when configured, else this process). The link
 * itself is 48 random characters, beyond guessing; the count keeps a script
 * from trying at the database's pace, and once it is over, a right link is
 * refused the same way, so a 429 tells a guesser nothing.
 */
function guessCounter(ctx: Context) {
  const windowMs = ARCHIVE_GUESS_WINDOW_SECONDS * 1000;
  const windowOf = () => {
    const now = ctx.clock.now().getTime();
    const index = Math.floor(now / windowMs);
    return { index, retryAfterSeconds: Math.max(1, Math.ceil(((index + 1) * windowMs - now) / 1000)) };
  };
  const redisKey = (ip: string, index: number) => `parley:archive-guesses:${ip}:${index}`;
  let memoryWindow = -1;
  let memory = new Map<string, number>();
  const memoryCounts = (index: number) => {
    if (index !== memoryWindow) [memoryWindow, memory] = [index, new Map()];
    return memory;
  };
  return {
    async admitted(ip: string): Promise<true | { retryAfterSeconds: number }> {
      const { index, retryAfterSeconds } = windowOf();
      const failures = ctx.redis ? Number((await ctx.redis.client.get(redisKey(ip, index))) ?? 0) : (memoryCounts(index).get(ip) ?? 0);
      return failures < ARCHIVE_GUESSES_PER_WINDOW ? true : { retryAfterSeconds };
    },
    async countFailure(ip: string): Promise<void> {
      const { index } = windowOf();
      if (ctx.redis) await ctx.redis.client.multi().incr(redisKey(ip, index)).pexpire(redisKey(ip, index), windowMs * 2).exec();
      else memoryCounts(index).set(ip, (memoryCounts(index).get(ip) ?? 0) + 1);
    },
  };
}

async function clientOfLink(ctx: Context, token: string): Promise<store.Client | undefined> {
  if (!LINK_TOKEN_PATTERN.test(token)) return undefined;
  return store.findClientByLink(ctx.db, fingerprint(token));
}

function archiveBody(language: Language, clientName: string, token: string, reports: Array<{ id: string; month: string }>): string {
  const t = REPORT_TEXTS[language];
  const items = reports
    .map((report) => `<li><a href="${ARCHIVE_PREFIX}/${token}/${report.id}.pdf">${escapeHtml(t.download(monthName(language, report.month)))}</a></li>`)
    .join('\n');
  return `<h1>${escapeHtml(t.archiveTitle(clientName))}</h1>
<p>${escapeHtml(t.archiveIntro)}</p>
${reports.length > 0 ? `<ul>\n${items}\n</ul>` : `<p>${escapeHtml(t.archiveEmpty)}</p>`}`;
}

/** Unknown, rotated and deleted links look the same: 404 with a short page (in English: whose link it was is not known). */
function gone(reply: FastifyReply) {
  return page(reply, 404, 'en', 'Not found', `<h1>Not found</h1>\n<p>${escapeHtml(REPORT_TEXTS.en.gone)}</p>`);
}

function page(reply: FastifyReply, status: number, language: Language, title: string, body: string) {
  return privateHeaders(reply)
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .send(`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1f2328}a{color:#1d4ed8}li{margin:.4rem 0}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`);
}

/** The link is a credential: not cached, not passed on as a referrer, not indexed. */
function privateHeaders(reply: FastifyReply) {
  return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff').header('x-robots-tag', 'noindex');
}
