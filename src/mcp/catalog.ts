import type { RouteOptions } from 'fastify';
import { z } from 'zod';
import type { Scope } from '../domain/principal.ts';

/** A public API route as the MCP server reuses it: its scope, audit action and its own zod schemas. */
export interface ApiRoute {
  /** 'GET /agents/:id/leads': method and path relative to /api/v1. */
  key: string;
  scope: Scope;
  /** The audit action of `config.audit`, when the route records one. */
  audit: string | undefined;
  params: z.ZodObject | undefined;
  /** The query or body schema, whichever the route reads. */
  payload: z.ZodType | undefined;
  /** The success status and the schema its reply is written with. */
  status: number;
  response: z.ZodType;
}

/**
 * The public API's routes, recorded as Fastify registers them (an onRoute
 * hook on the /api/v1 scope). The MCP tools take their input and output
 * schemas, scope and audit action from here, so a tool cannot drift from the
 * REST operation it mirrors.
 */
export class RouteCatalog {
  readonly #routes = new Map<string, ApiRoute>();
  readonly #prefix: string;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** The onRoute hook. */
  readonly record = (route: RouteOptions): void => {
    const scope = route.config?.scope;
    if (!scope) return;
    const response = route.schema?.response as Record<string, z.ZodType> | undefined;
    const success = Object.keys(response ?? {}).find((status) => /^2\d\d$/.test(status));
    if (!response || !success) return;
    const path = route.url.startsWith(this.#prefix) ? route.url.slice(this.#prefix.length) : route.url;
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      const key = `${method} ${path}`;
      this.#routes.set(key, {
        key,
        scope,
        audit: route.config?.audit,
        params: route.schema?.params as z.ZodObject | undefined,
        payload: (route.schema?.body ?? route.schema?.querystring) as z.ZodType | undefined,
        status: Number(success),
        response: response[success]!,
      });
    }
  };

  /** The route, or a start-up failure naming it: a tool whose route is gone must not be served. */
  route(key: string): ApiRoute {
    const found = this.#routes.get(key);
    if (!found) throw new Error(`The MCP tool table names ${key}, which the API does not have`);
    return found;
  }

  get keys(): string[] {
    return [...this.#routes.keys()];
  }
}
