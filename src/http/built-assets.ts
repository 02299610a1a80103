import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BuiltAsset } from '../platform/bundle.ts';

/** Sends a built asset (src/platform/bundle.ts) with its ETag and caching; a matching If-None-Match gets 304. */
export function sendBuiltAsset(request: FastifyRequest, reply: FastifyReply, asset: BuiltAsset, cacheControl: string, headers: Record<string, string> = {}): FastifyReply {
  reply.header('cache-control', cacheControl).header('etag', asset.etag).header('x-content-type-options', 'nosniff').headers(headers).type(asset.type);
  if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
  return reply.send(asset.body);
}
