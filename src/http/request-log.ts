import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';

/**
 * One wide line per request (architecture rule 9), written when the request
 * is done; none is built when the level leaves request lines out.
 */
export function installRequestLog(app: FastifyInstance): void {
  if (!levelEnabled(app.log, 'info')) return;
  // A callback hook: an async one costs a promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    logRequest(request, reply);
    done();
  });
}

/** Pino's isLevelEnabled; Fastify's stand-in when logging is off has none. */
function levelEnabled(logger: FastifyBaseLogger, level: string): boolean {
  const check = (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled;
  return check ? check.call(logger, level) : false;
}

function logRequest(request: FastifyRequest, reply: FastifyReply): void {
  request.log.info(
    {
      method: request.method,
      route: request.routeOptions.url ?? request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      workspaceId: request.auth?.workspaceId,
      ...(request.auth?.kind === 'key' ? { keyId: request.auth.keyId } : request.auth ? { personId: request.auth.personId } : {}),
    },
    'request',
  );
}

/**
 * Fastify gives every request a child logger bound to its request id. Making
 * a pino child costs more than the rest of a cached read's logging, and most
 * requests write nothing but their request line: this one is made on first use.
 */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

class LazyChildLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The pino child, made now if it was not before. */
  real(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  get level(): string {
    return this.real().level;
  }
  set level(level: string) {
    this.real().level = level;
  }
  /** The parent's level, unless the route gives its own (Fastify's logLevel), which only the child knows. */
  isLevelEnabled(level: string): boolean {
    return levelEnabled(this.#options.level === undefined ? this.#parent : this.real(), level);
  }
  silent(): void {}
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }
}

// fatal … trace: each passes its arguments on to the real child, made only for a line that will be written.
for (const level of LEVELS) {
  Object.defineProperty(LazyChildLogger.prototype, level, {
    value(this: LazyChildLogger, ...args: unknown[]) {
      if (!this.isLevelEnabled(level)) return;
      const child = this.real();
      (child[level] as (...a: unknown[]) => void).apply(child, args);
    },
  });
}
