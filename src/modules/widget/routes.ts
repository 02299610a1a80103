/**
 * Serves the widget (docs/widget.md): the loader at /widget.js (short-cached, so a
 * new build reaches sites within minutes), the widget module under a content-hashed
 * name (cached for a year), and the iframe page at /chat/{agentId}, which only the
 * agent's allowedOrigins may frame.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { buildWidget, type WidgetAsset } from '../../widget/build.ts';
import { sendBuiltAsset } from '../../http/built-assets.ts';
import { findVisitorTarget } from '../visitors/access.ts';

const LOADER_MAX_AGE_SECONDS = 300;
const MODULE_MAX_AGE_SECONDS = 31_536_000;

export async function widgetRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };

  // Built at the first request for it (buildWidget keeps the build): an api process that serves no widget never runs esbuild.
  app.get('/widget.js', { schema: hidden }, async (request, reply) => sendAsset(request, reply, (await buildWidget()).loader, `public, max-age=${LOADER_MAX_AGE_SECONDS}`));
  app.get('/widget/:file', { schema: { ...hidden, params: z.strictObject({ file: z.string().max(100) }) } }, async (request, reply) => {
    const built = await buildWidget();
    if (`/widget/${request.params.file}` !== built.module.path) throw errors.notFound('file');
    return sendAsset(request, reply, built.module, `public, max-age=${MODULE_MAX_AGE_SECONDS}, immutable`);
  });

  app.get('/chat/:agentId', { schema: { ...hidden, params: z.strictObject({ agentId: z.string().max(100) }) } }, async (request, reply) => {
    const { visitor } = await findVisitorTarget(ctx, request.params.agentId, undefined, request.ip);
    const { settings } = visitor;
    const ancestors = settings.allowedOrigins.length > 0 ? settings.allowedOrigins.join(' ') : '*';
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header(
        'content-security-policy',
        [
          "default-src 'none'",
          "script-src 'self'",
          "connect-src 'self'",
          'img-src https: data:',
          `frame-ancestors ${ancestors}`,
          "base-uri 'none'",
          "form-action 'none'",
        ].join('; '),
      )
      .header('referrer-policy', 'strict-origin-when-cross-origin')
      .header('x-content-type-options', 'nosniff')
      .send(chatPage(settings.id, settings.name, settings.language));
  });
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: WidgetAsset, cacheControl: string): FastifyReply {
  // The module is loaded with import(), a CORS request from the site's page.
  return sendBuiltAsset(request, reply, asset, cacheControl, { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' });
}

function chatPage(agentId: string, name: string, language: string): string {
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(name)}</title>
</head>
<body>
<script src="/widget.js" data-agent="${escapeHtml(agentId)}" data-mode="page" defer></script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
