/**
 * A large agent's posting lists stored a second time as blocks of varints, ready to read (migration 056): a derived
 * read cache of passage_postings, built by a background job off the write path, up to the agent's watermark
 * (agent_blocks.through_seq). Writes and deletes never touch it: a deleted passage's postings stay in their blocks and
 * are skipped when read (postings.ts, blocksList: their numbers have no slot in the passage table of the version
 * read), and the job compacts the agent's blocks once too much of them is gone. A question reads a term's blocks and
 * the postings numbered past the watermark from passage_postings in one statement (postings.ts, readTerms), so the
 * two are of one snapshot. Document frequencies still come from agent_term_stats: rankings are the same bit for bit.
 * docs/knowledge.md, "Postings in memory"; docs/performance.md, "Search at a million passages", thirteenth round.
 */
import { sql, type Transaction } from 'kysely';
import type { Context } from '../../context.ts';
import type { Tables } from '../../platform/db.ts';
import { postingsFrom } from './postings.ts';

export const BLOCKS_JOB = 'knowledge.blocks';

export interface BlocksJob {
  agentId: string;
}

/** Postings a block at most, and its bytes at most (past about 2 kB a row is compressed and moved out of line). */
const BLOCK_POSTINGS = 512;
const BLOCK_BYTES = 1_500;
/** The blocks are built again whole once this share of the passages they cover was deleted since. */
const COMPACT_DELETED_SHARE = 0.2;
/** ... or once they were extended this many times (each extension adds a short block to every term it touches). */
const MAX_EXTENSIONS = 16;
/**
 * The postings past the watermark are read from passage_postings; the blocks are extended once they are at least this
 * share of the passages covered (and MIN_TAIL): a short tail costs a question little, and short blocks each time would.
 */
const EXTEND_SHARE = 0.02;
const MIN_TAIL = 1_000;
/** Postings read a statement while building (8 bytes each, sent as base64). */
const READ_POSTINGS = 1_000_000;
/** After a write to a large agent, its job starts this much later; a process sends at most one an agent this often. */
const DELAY_SECONDS = 5;
const SEND_EVERY_MS = DELAY_SECONDS * 1000;
/** While an agent is being written its blocks are built at most this often (the tail is read from the postings meanwhile). */
const MAX_WAIT_SECONDS = 300;

export interface BlocksOutcome {
  action: 'none' | 'dropped' | 'extended' | 'compacted';
  throughSeq: number;
  /** Postings encoded into blocks now. */
  postings: number;
  blocks: number;
}

export interface BlocksOptions {
  /** Extend when at least this many passages lie past the watermark (the tests: 1). */
  minTail?: number;
  /** Build the blocks again whole. */
  compact?: boolean;
  /** Called inside the job's transaction just before it commits (the tests' way to kill it there). */
  beforeCommit?: () => Promise<void> | void;
}

interface AgentState {
  passage_count: number;
  first: number | null;
  last: number | null;
  through: number | null;
  covered: number | null;
  extensions: number | null;
  live_covered: number;
}

/**
 * Brings the agent's blocks up to its passages, in one transaction of one snapshot (a job killed midway leaves the
 * earlier blocks and watermark): built whole when there are none, or when too much of them was deleted or too many
 * extensions made; extended by the postings numbered past the watermark when there are enough; dropped when the agent
 * fell under the size threshold. The watermark is the highest passage number the snapshot holds: writers take their
 * passages' numbers while holding the agent's statistics row until they commit (indexing.ts, lockAgentStats), so no
 * passage of the agent is committed later with a lower number.
 */
export async function buildBlocks(ctx: Context, agentId: string, options: BlocksOptions = {}): Promise<BlocksOutcome> {
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    await sql`set transaction isolation level repeatable read`.execute(trx);
    // Two jobs of one agent: the second waits here, then fails to serialise (retried), rather than adding twice.
    await sql`select 1 from agent_blocks where agent_id = ${agentId} for update`.execute(trx);
    const { rows } = await sql<AgentState>`
      with b as (select through_seq, passages_covered, extensions from agent_blocks where agent_id = ${agentId})
      select s.passage_count,
        (select min(seq) from passages where agent_id = ${agentId})::float8 as first,
        (select max(seq) from passages where agent_id = ${agentId})::float8 as last,
        (select through_seq from b)::float8 as through, (select passages_covered from b)::float8 as covered, (select extensions from b) as extensions,
        (select count(*) from passages where agent_id = ${agentId} and seq <= coalesce((select through_seq from b), -1))::float8 as live_covered
      from agent_stats s where s.agent_id = ${agentId}`.execute(trx);
    const state = rows[0];
    const done = await bringUpToDate(trx, agentId, state, ctx.config.searchBlocksMinPassages, options);
    await options.beforeCommit?.();
    return done;
  });
  // The embedded store has no autovacuum: a compaction's deleted blocks would stay as dead rows.
  if (ctx.database.kind === 'embedded' && (outcome.action === 'compacted' || outcome.action === 'dropped')) await ctx.database.exec('vacuum analyze term_blocks');
  return outcome;
}

async function bringUpToDate(trx: Transaction<Tables>, agentId: string, state: AgentState | undefined, minPassages: number, options: BlocksOptions): Promise<BlocksOutcome> {
  const has = state?.through !== null && state?.through !== undefined;
  const none: BlocksOutcome = { action: 'none', throughSeq: has ? state!.through! : -1, postings: 0, blocks: 0 };
  const count = Number(state?.passage_count ?? 0);
  // Offsets from the first passage are read as int4 (as readTerms reads them): an agent spread wider is left to the database function.
  if (!state || count < minPassages || state.first === null || state.last! - state.first >= 2 ** 31) {
    if (!has) return none;
    await dropBlocks(trx, agentId);
    return { ...none, action: 'dropped', throughSeq: -1 };
  }
  const covered = Number(state.covered ?? 0);
  const deleted = covered - Number(state.live_covered);
  const far = has && state.last! - state.through! >= 2 ** 31; // the tail's offsets from the watermark would not fit an int4
  if (!has || far || options.compact || deleted > COMPACT_DELETED_SHARE * covered || Number(state.extensions) >= MAX_EXTENSIONS) {
    await dropBlocks(trx, agentId);
    const terms = await sql<{ term_id: number; weight: number }>`
      select term_id::float8 as term_id, df::float8 as weight from agent_term_stats where agent_id = ${agentId} order by term_id`.execute(trx);
    const written = await encodeRange(trx, agentId, terms.rows, state.first - 1, state.last!);
    await sql`insert into agent_blocks (agent_id, through_seq, passages_covered, extensions, built_at) values (${agentId}, ${state.last}, ${count}, 0, now())`.execute(trx);
    return { action: 'compacted', throughSeq: state.last!, ...written };
  }
  const through = state.through!;
  const tail = count - Number(state.live_covered);
  if (tail <= 0 || tail < (options.minTail ?? Math.max(MIN_TAIL, EXTEND_SHARE * covered))) return none;
  // The terms of the passages past the watermark, weighed by the share of the agent those passages are.
  const terms = await sql<{ term_id: number; weight: number }>`
    select t.term_id::float8 as term_id, s.df::float8 * ${tail / count}::float8 + 1 as weight
    from (select distinct unnest(term_ids) as term_id from passages where agent_id = ${agentId} and seq > ${through}) t
    join agent_term_stats s on s.term_id = t.term_id order by t.term_id`.execute(trx);
  const written = await encodeRange(trx, agentId, terms.rows, through, state.last!);
  await sql`update agent_blocks set through_seq = ${state.last}, passages_covered = passages_covered + ${tail}, extensions = extensions + 1, built_at = now()
    where agent_id = ${agentId}`.execute(trx);
  return { action: 'extended', throughSeq: state.last!, ...written };
}

async function dropBlocks(trx: Transaction<Tables>, agentId: string): Promise<void> {
  await sql`delete from term_blocks where agent_id = ${agentId}`.execute(trx);
  await sql`delete from agent_blocks where agent_id = ${agentId}`.execute(trx);
}

/** Writes the terms' postings numbered in (after, through] as blocks, READ_POSTINGS (by weight) a statement. */
async function encodeRange(trx: Transaction<Tables>, agentId: string, terms: Array<{ term_id: number; weight: number }>, after: number, through: number): Promise<{ postings: number; blocks: number }> {
  let postings = 0;
  let blocks = 0;
  for (let start = 0; start < terms.length; ) {
    let end = start;
    for (let weight = 0; end < terms.length && (end === start || weight + terms[end]!.weight <= READ_POSTINGS); end++) weight += terms[end]!.weight;
    const ids = terms.slice(start, end).map((term) => term.term_id);
    start = end;
    const { rows } = await sql<{ term_id: number; postings: string | null }>`
      select x.term_id::float8 as term_id,
        (select ${postingsFrom(after + 1)}
         from passage_postings p where p.term_id = x.term_id and p.passage_seq > ${after}::bigint and p.passage_seq <= ${through}::bigint) as postings
      from unnest(${ids}::bigint[]) as x(term_id)`.execute(trx);
    const made: EncodedBlock[] = [];
    for (const row of rows) {
      if (row.postings === null) continue;
      const { seqs, tfs } = readPostings(Buffer.from(row.postings, 'base64'), after + 1);
      postings += seqs.length;
      for (const block of encodeBlocks(seqs, tfs)) made.push({ ...block, termId: Number(row.term_id) });
    }
    blocks += made.length;
    if (made.length === 0) continue;
    await sql`insert into term_blocks (agent_id, term_id, first_seq, count, bytes)
      select ${agentId}, b.term_id, b.first_seq, b.count, decode(b.bytes, 'base64')
      from unnest(${made.map((b) => b.termId)}::bigint[], ${made.map((b) => b.firstSeq)}::bigint[], ${made.map((b) => b.count)}::int[],
                  ${made.map((b) => Buffer.from(b.bytes).toString('base64'))}::text[]) as b(term_id, first_seq, count, bytes)`.execute(trx);
  }
  return { postings, blocks };
}

/** Postings read as offsets from `base` and tfs (int8send of offset * 2^32 + tf), put in number order if they were not. */
function readPostings(bytes: Uint8Array, base: number): { seqs: Float64Array; tfs: Int32Array } {
  const count = bytes.byteLength / 8;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let seqs = new Float64Array(count);
  let tfs = new Int32Array(count);
  let sorted = true;
  for (let i = 0; i < count; i++) {
    seqs[i] = base + view.getInt32(i * 8);
    tfs[i] = view.getInt32(i * 8 + 4);
    if (i > 0 && seqs[i] <= seqs[i - 1]) sorted = false;
  }
  if (!sorted) {
    const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => seqs[a]! - seqs[b]!);
    seqs = Float64Array.from(order, (i) => seqs[i]!);
    tfs = Int32Array.from(order, (i) => tfs[i]!);
  }
  return { seqs, tfs };
}

export interface EncodedBlock {
  termId: number;
  firstSeq: number;
  count: number;
  bytes: Uint8Array;
}

/**
 * A term's postings (ascending numbers) as blocks: each posting varint(gap * 2 + (tf <> 1)), then varint(tf) when tf
 * is not 1, its gap from the posting before in the block (0 for the first, whose number is the block's first_seq).
 */
export function encodeBlocks(seqs: ArrayLike<number>, tfs: ArrayLike<number>): Array<Omit<EncodedBlock, 'termId'>> {
  const blocks: Array<Omit<EncodedBlock, 'termId'>> = [];
  const buffer = new Uint8Array(BLOCK_BYTES + 20);
  let length = 0;
  let count = 0;
  let first = 0;
  let previous = 0;
  const close = () => {
    if (count > 0) blocks.push({ firstSeq: first, count, bytes: buffer.slice(0, length) });
    length = 0;
    count = 0;
  };
  for (let i = 0; i < seqs.length; i++) {
    if (count >= BLOCK_POSTINGS || length >= BLOCK_BYTES) close();
    const seq = seqs[i]!;
    if (count === 0) first = previous = seq;
    const tf = tfs[i]!;
    length = writeVarint(buffer, length, (seq - previous) * 2 + (tf === 1 ? 0 : 1));
    if (tf !== 1) length = writeVarint(buffer, length, tf);
    previous = seq;
    count++;
  }
  close();
  return blocks;
}

/** Seven bits a byte, the high bit set on every byte but the last (values up to 2^53: arithmetic, not bit operations). */
function writeVarint(into: Uint8Array, at: number, value: number): number {
  while (value >= 128) {
    into[at++] = (value % 128) | 128;
    value = Math.floor(value / 128);
  }
  into[at++] = value;
  return at;
}

/** Decodes a block (the tests' view, and the reference for postings.ts's reader). */
export function decodeBlock(firstSeq: number, count: number, bytes: Uint8Array): { seqs: number[]; tfs: number[] } {
  const seqs: number[] = [];
  const tfs: number[] = [];
  let at = 0;
  let seq = firstSeq;
  const read = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[at++]!;
      value += (byte & 127) * scale;
      if (byte < 128) return value;
      scale *= 128;
    }
  };
  for (let i = 0; i < count; i++) {
    const head = read();
    seq += Math.floor(head / 2);
    seqs.push(seq);
    tfs.push(head % 2 === 1 ? read() : 1);
  }
  if (at !== bytes.byteLength) throw new Error(`a block of ${count} postings held ${bytes.byteLength} bytes, read ${at}`);
  return { seqs, tfs };
}

const lastSent = new WeakMap<Context, Map<string, number>>();

/**
 * After a write to an agent of `passageCount` passages: when it is large enough for blocks, its job is queued to start
 * a few seconds later (one waiting an agent: its key, `oneWaitingPerKey`; and one send a process an agent each few
 * seconds). Never fails the write: the blocks are a cache, and the next write queues it again.
 */
export async function scheduleBlocks(ctx: Context, agentId: string, passageCount: number): Promise<void> {
  if (passageCount < ctx.config.searchBlocksMinPassages) return;
  let sent = lastSent.get(ctx);
  if (!sent) lastSent.set(ctx, (sent = new Map()));
  const now = Date.now();
  if (now - (sent.get(agentId) ?? 0) < SEND_EVERY_MS) return;
  sent.set(agentId, now);
  try {
    await defineBlocksJob(ctx);
    await queueBlocks(ctx, agentId);
  } catch (error) {
    console.error('[knowledge] queueing the blocks of', agentId, error);
  }
}

/** The agent's job, DELAY_SECONDS from now; dropped when one is waiting already (oneWaitingPerKey). */
async function queueBlocks(ctx: Context, agentId: string): Promise<void> {
  await ctx.queue.send<BlocksJob>(BLOCKS_JOB, { agentId }, { singletonKey: agentId, startAfterSeconds: DELAY_SECONDS });
}

export async function defineBlocksJob(ctx: Context): Promise<void> {
  await ctx.queue.define(BLOCKS_JOB, { retryLimit: 3, retryDelaySeconds: 10, expireInSeconds: 60 * 60, oneWaitingPerKey: true });
}

/** The worker's side: one job at a time, looked for every few seconds when no send wakes it (a delayed job sends none). */
export async function workBlocks(ctx: Context): Promise<void> {
  await defineBlocksJob(ctx);
  await ctx.queue.work<BlocksJob>(BLOCKS_JOB, (job) => blocksJob(ctx, job.agentId), { concurrency: 1, pollingSeconds: DELAY_SECONDS });
}

/**
 * The job: the blocks are built once the agent's passages have not been written for DELAY_SECONDS (a retrain or a
 * long ingest writes for minutes, and a build beside it each few seconds slowed a retrain of 10,000 passages by a
 * fifth), or when they were last built MAX_WAIT_SECONDS ago or never; otherwise it is queued again for later.
 */
async function blocksJob(ctx: Context, agentId: string): Promise<void> {
  const { rows } = await sql<{ written: number | null; built: number | null }>`
    select extract(epoch from now() - s.written_at)::float8 as written, extract(epoch from now() - b.built_at)::float8 as built
    from agent_stats s left join agent_blocks b on b.agent_id = s.agent_id where s.agent_id = ${agentId}`.execute(ctx.db);
  const { written, built } = rows[0] ?? { written: null, built: null };
  if (written !== null && written < DELAY_SECONDS && built !== null && built < MAX_WAIT_SECONDS) {
    await queueBlocks(ctx, agentId);
    return;
  }
  await buildBlocks(ctx, agentId);
}
