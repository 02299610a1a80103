import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Context } from '../context.ts';
import { recordAudit } from '../modules/audit/store.ts';
import { actorOf } from '../domain/principal.ts';

/**
 * Every successful request to a route marked with `config.audit` is written to
 * the audit log with the key or the person that made it, before the reply leaves: a change
 * that could not be recorded is reported as a failure.
 * The target is the ids in the path, followed by the id of what was created.
 */
export function auditRoutes(ctx: Context) {
  const recordChange = auditHook(ctx);
  // Attached only to the routes that change something, so reads pay nothing for it.
  return (route: RouteOptions): void => {
    if (!route.config?.audit) return;
    route.onSend = [...(route.onSend ? [route.onSend].flat() : []), recordChange];
  };
}

function auditHook(ctx: Context) {
  return async function recordChange(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const action = request.routeOptions.config.audit;
    if (!action || reply.statusCode >= 400 || !request.auth) return payload;
    await recordAudit(ctx.db, {
      workspaceId: request.auth.workspaceId,
      ...actorOf(request.auth),
      action,
      target: targetOf(request.params as Record<string, string> | undefined, payload),
      requestId: request.id,
      at: ctx.clock.now(),
    });
    return payload;
  };
}

/** The ids in the path, followed by the id of what was created (from the reply as written). */
export function targetOf(params: Record<string, string> | undefined, payload: unknown): string | null {
  const ids = params ? Object.values(params) : [];
  const created = createdIdOf(payload);
  if (created && !ids.includes(created)) ids.push(created);
  return ids.length > 0 ? ids.join('/') : null;
}

function createdIdOf(payload: unknown): string | undefined {
  if (typeof payload !== 'string') return undefined;
  try {
    const id = JSON.parse(payload)?.data?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
