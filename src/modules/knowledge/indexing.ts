/**
 * Writing a source's passages into the search index: the passages, their lexemes
 * (PostgreSQL full text, stemmed in the agent's language), the BM25 statistics and,
 * with an embedding provider, their vectors. All of one source in one transaction,
 * serialised per agent by a lock on the agent's statistics row.
 */
import { sql, type Transaction } from 'kysely';
import type { Context } from '../../context.ts';
import type { Tables } from '../../platform/db.ts';
import { newId } from '../../platform/ids.ts';
import { chunkText } from './chunk.ts';
import { embeddingsEnabled, embedTexts, vectorLiteral, vectorTable } from './embeddings.ts';
import { agentLanguage, type SourceRow } from './store.ts';

const TEXT_SEARCH_CONFIG: Record<string, string> = { en: 'english', nl: 'dutch', fr: 'french', de: 'german', es: 'spanish' };

export function textSearchConfig(language: string): string {
  return TEXT_SEARCH_CONFIG[language] ?? 'english';
}

/** Thrown when a source gives no text to index. */
export class NoContentError extends Error {}

/** The text a source is indexed from. */
export function indexableText(source: Pick<SourceRow, 'type' | 'name' | 'content'>): string {
  return source.type === 'qa' ? `${source.name}\n\n${source.content}` : source.content;
}

/**
 * Indexes the source's stored text and marks it ready. Does nothing when the source is
 * gone or was queued again since (another generation). Throws NoContentError for a
 * source without text.
 */
export async function indexSourceText(ctx: Context, input: { sourceId: string; agentId: string; generation: number }): Promise<boolean> {
  const source = await ctx.db.selectFrom('sources').selectAll().where('id', '=', input.sourceId).executeTakeFirst();
  if (!source || source.generation !== input.generation) return false;
  const chunks = chunkText(indexableText(source));
  if (chunks.length === 0) throw new NoContentError('the source holds no text');
  const title = source.title ?? source.name;
  const vectors = embeddingsEnabled(ctx) ? await embedTexts(ctx, chunks.map((c) => c.text), { maxRetries: 0 }) : undefined;
  const table = vectors ? await vectorTable(ctx) : undefined;
  const config = textSearchConfig(await agentLanguage(ctx.db, source.agent_id));

  return ctx.db.transaction().execute(async (trx) => {
    await lockAgentStats(trx, source.agent_id);
    const current = await trx.selectFrom('sources').select('generation').where('id', '=', source.id).forUpdate().executeTakeFirst();
    if (!current || current.generation !== input.generation) return false;
    await removePassages(trx, source.agent_id, source.id);
    const ids = chunks.map(() => newId('chk'));
    for (const [i, chunk] of chunks.entries()) {
      await trx
        .insertInto('passages')
        .values({ id: ids[i], agent_id: source.agent_id, source_id: source.id, position: chunk.position, title, url: source.url, text: chunk.text, length: 0 })
        .execute();
      await sql`
        insert into passage_terms (passage_id, agent_id, term, tf)
        select ${ids[i]}, ${source.agent_id}, lexeme, coalesce(array_length(positions, 1), 1)
        from unnest(to_tsvector(${config}::regconfig, ${chunk.text}))`.execute(trx);
      if (vectors && table) {
        await sql`insert into ${sql.table(table)} (passage_id, agent_id, model, embedding)
          values (${ids[i]}, ${source.agent_id}, ${ctx.config.embeddingModel}, ${vectorLiteral(vectors[i])}::vector)`.execute(trx);
      }
    }
    await addStatistics(trx, source.agent_id, source.id);
    await trx
      .updateTable('sources')
      .set({ status: 'ready', error: null, chunk_count: chunks.length, processed_at: ctx.clock.now() })
      .where('id', '=', source.id)
      .execute();
    return true;
  });
}

/** Takes the agent's statistics row (made when missing) for the rest of the transaction. */
async function lockAgentStats(trx: Transaction<Tables>, agentId: string): Promise<void> {
  await sql`insert into agent_stats (agent_id) values (${agentId}) on conflict (agent_id) do nothing`.execute(trx);
  await sql`select 1 from agent_stats where agent_id = ${agentId} for update`.execute(trx);
}

async function addStatistics(trx: Transaction<Tables>, agentId: string, sourceId: string): Promise<void> {
  await sql`
    update passages p set length = coalesce((select sum(tf) from passage_terms t where t.passage_id = p.id), 0)
    where p.source_id = ${sourceId}`.execute(trx);
  await sql`
    insert into agent_term_stats (agent_id, term, df)
    select ${agentId}, t.term, count(*) from passage_terms t join passages p on p.id = t.passage_id
    where p.source_id = ${sourceId} group by t.term order by t.term
    on conflict (agent_id, term) do update set df = agent_term_stats.df + excluded.df`.execute(trx);
  await sql`
    update agent_stats set
      passage_count = passage_count + (select count(*) from passages where source_id = ${sourceId}),
      total_length = total_length + (select coalesce(sum(length), 0) from passages where source_id = ${sourceId})
    where agent_id = ${agentId}`.execute(trx);
}

/** Takes a source's passages out of the index and its terms out of the statistics. */
async function removePassages(trx: Transaction<Tables>, agentId: string, sourceId: string): Promise<void> {
  await sql`
    update agent_term_stats s set df = s.df - x.n
    from (select t.term, count(*) as n from passage_terms t join passages p on p.id = t.passage_id
          where p.source_id = ${sourceId} group by t.term) x
    where s.agent_id = ${agentId} and s.term = x.term`.execute(trx);
  await sql`delete from agent_term_stats where agent_id = ${agentId} and df <= 0`.execute(trx);
  await sql`
    update agent_stats set
      passage_count = passage_count - (select count(*) from passages where source_id = ${sourceId}),
      total_length = total_length - (select coalesce(sum(length), 0) from passages where source_id = ${sourceId})
    where agent_id = ${agentId}`.execute(trx);
  await sql`delete from passages where source_id = ${sourceId}`.execute(trx);
}

/** Deletes a source with its passages and their statistics, at once. */
export async function deleteSourceAndPassages(ctx: Context, agentId: string, sourceId: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await lockAgentStats(trx, agentId);
    await removePassages(trx, agentId, sourceId);
    await trx.deleteFrom('sources').where('id', '=', sourceId).where('agent_id', '=', agentId).execute();
  });
}
