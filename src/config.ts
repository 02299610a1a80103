import path from 'node:path';

export type Role = 'api' | 'worker' | 'all';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Put before every Redis key, so several deployments (or test services) can share one Redis. */
  redisKeyPrefix: string;
  adminToken: string | undefined;
  rateLimitPerMinute: number;
  /** Multiplies every figure of the visitor API's rate limits (docs/visitors.md); raised only for load tests and other areas' tests. */
  visitorLimitFactor: number;
  role: Role;
  testClock: boolean;
  allowPrivateUrls: boolean;
  smtpUrl: string | undefined;
  openaiApiKey: string | undefined;
  openaiBaseUrl: string | undefined;
  embeddingModel: string | undefined;
  embeddingDimensions: number;
  /** Extra models for the catalogue: a JSON list of { id, provider, creditsPerAnswer, contextSize, minPlan }. */
  extraModels: string | undefined;
  logLevel: string;
  /** File sources must arrive within this time (spec: 20 s); tests lower it. */
  fileFetchTimeoutMs: number;
  /** Bounds of the isolated file reader (memory: the reader process's own, in MB): a file that takes more is file_too_complex. */
  fileReadMemoryMb: number;
  /** The lexical search's posting lists one process keeps, over all agents, in bytes (PARLEY_SEARCH_MEMORY_MB; postings.ts). */
  searchMemoryBytes: number;
  /** Agents of at least this many passages get their posting lists built as blocks off the write path (PARLEY_SEARCH_BLOCKS_MIN_PASSAGES; blocks.ts). */
  searchBlocksMinPassages: number;
  fileReadTimeoutMs: number;
  /** Files read at once by this process (visitor files and sources together); more wait their turn. */
  fileReadConcurrency: number;
  /** First retry delay of a source read that hit a passing fault (doubling after). */
  sourceRetryDelaySeconds: number;
  /** A worker whose heartbeat is this old died: the crawl pages and source reads it held are taken up again. */
  lostWorkAfterSeconds: number;
  /** Owner of the Demo workspace made on the first start (docs/people.md). */
  ownerEmail: string;
  /** The e-mail channel's SMTP server (docs/email.md): off when unset or 0. */
  mailInboundPort: number | undefined;
  mailInboundHost: string;
  /** STARTTLS on the inbound port: certificate and key files (PEM); without them a self-signed pair is made at start. */
  mailTlsCert: string | undefined;
  mailTlsKey: string | undefined;
  /** Seconds between two looks into the agents' IMAP mailboxes (docs/email.md, "IMAP"). */
  mailImapPollSeconds: number;
  /** The key that seals secrets at rest (IMAP passwords); generated into the data directory when unset. */
  secretKey: string | undefined;
}

type Env = Record<string, string | undefined>;

/** Environment -> typed config. Called once by the composition root; nothing reads process.env at import time. */
export function loadConfig(env: Env = process.env): Config {
  const port = intFrom(env.PORT, 8080, 'PORT');
  const role = (env.PARLEY_ROLE ?? 'all') as Role;
  if (!['api', 'worker', 'all'].includes(role)) throw new Error(`PARLEY_ROLE must be api, worker or all, not "${role}"`);
  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    publicUrl: (env.PARLEY_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    dataDir: path.resolve(env.PARLEY_DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisKeyPrefix: env.PARLEY_REDIS_KEY_PREFIX ?? '',
    adminToken: env.PARLEY_ADMIN_TOKEN || undefined,
    rateLimitPerMinute: intFrom(env.PARLEY_RATE_LIMIT_PER_MINUTE, 120, 'PARLEY_RATE_LIMIT_PER_MINUTE'),
    visitorLimitFactor: intFrom(env.PARLEY_VISITOR_LIMIT_FACTOR, 1, 'PARLEY_VISITOR_LIMIT_FACTOR'),
    role,
    testClock: env.PARLEY_TEST_CLOCK === '1',
    allowPrivateUrls: env.PARLEY_ALLOW_PRIVATE_URLS === '1',
    smtpUrl: env.SMTP_URL || undefined,
    openaiApiKey: env.OPENAI_API_KEY || undefined,
    openaiBaseUrl: env.OPENAI_BASE_URL || undefined,
    embeddingModel: env.PARLEY_EMBEDDING_MODEL || undefined,
    embeddingDimensions: intFrom(env.PARLEY_EMBEDDING_DIMENSIONS, 384, 'PARLEY_EMBEDDING_DIMENSIONS'),
    extraModels: env.PARLEY_MODELS || undefined,
    logLevel: env.PARLEY_LOG_LEVEL ?? 'info',
    fileFetchTimeoutMs: intFrom(env.PARLEY_FILE_FETCH_TIMEOUT_MS, 20_000, 'PARLEY_FILE_FETCH_TIMEOUT_MS'),
    fileReadMemoryMb: intFrom(env.PARLEY_FILE_READ_MEMORY_MB, 512, 'PARLEY_FILE_READ_MEMORY_MB'),
    searchMemoryBytes: intFrom(env.PARLEY_SEARCH_MEMORY_MB, 128, 'PARLEY_SEARCH_MEMORY_MB') * 2 ** 20,
    searchBlocksMinPassages: intFrom(env.PARLEY_SEARCH_BLOCKS_MIN_PASSAGES, 20_000, 'PARLEY_SEARCH_BLOCKS_MIN_PASSAGES'),
    fileReadTimeoutMs: intFrom(env.PARLEY_FILE_READ_TIMEOUT_MS, 30_000, 'PARLEY_FILE_READ_TIMEOUT_MS'),
    fileReadConcurrency: intFrom(env.PARLEY_FILE_READ_CONCURRENCY, 2, 'PARLEY_FILE_READ_CONCURRENCY'),
    sourceRetryDelaySeconds: intFrom(env.PARLEY_SOURCE_RETRY_DELAY_SECONDS, 5, 'PARLEY_SOURCE_RETRY_DELAY_SECONDS'),
    lostWorkAfterSeconds: intFrom(env.PARLEY_LOST_WORK_AFTER_SECONDS, 15, 'PARLEY_LOST_WORK_AFTER_SECONDS'),
    ownerEmail: env.PARLEY_OWNER_EMAIL || 'owner@localhost',
    // "0 picks none" (operator contract): 0 leaves the server off, like no value.
    mailInboundPort: env.PARLEY_MAIL_INBOUND_PORT === '0' ? undefined : env.PARLEY_MAIL_INBOUND_PORT ? intFrom(env.PARLEY_MAIL_INBOUND_PORT, 0, 'PARLEY_MAIL_INBOUND_PORT') : undefined,
    mailInboundHost: env.PARLEY_MAIL_INBOUND_HOST || (env.HOST ?? '127.0.0.1'),
    mailTlsCert: env.PARLEY_MAIL_TLS_CERT || undefined,
    mailTlsKey: env.PARLEY_MAIL_TLS_KEY || undefined,
    mailImapPollSeconds: intFrom(env.PARLEY_MAIL_IMAP_POLL_SECONDS, 60, 'PARLEY_MAIL_IMAP_POLL_SECONDS'),
    secretKey: env.PARLEY_SECRET_KEY || undefined,
  };
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, not "${value}"`);
  return n;
}
