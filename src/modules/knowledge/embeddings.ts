/**
 * Passage and query vectors from the operator's OpenAI-compatible /embeddings endpoint.
 * That endpoint is trusted configuration, not user input, so it is reached with the
 * normal fetch rather than the guarded one.
 */
import type { EmbeddingModel } from 'ai';
import type { Context } from '../../context.ts';

export function embeddingsEnabled(ctx: Context): boolean {
  return Boolean(ctx.config.openaiBaseUrl && ctx.config.embeddingModel);
}

const BATCH = 64;

/** The embedding model, made once a context: making it is a measurable share of a search's embedding call. */
const embeddingModels = new WeakMap<Context, EmbeddingModel>();

/** The AI SDK and its provider package are loaded here at the first embedding (docs/performance.md, Memory): without embeddings, never. */
async function embeddingModel(ctx: Context): Promise<EmbeddingModel> {
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  let model = embeddingModels.get(ctx);
  if (!model) {
    const provider = createOpenAICompatible({ name: 'parley-embeddings', baseURL: ctx.config.openaiBaseUrl!.replace(/\/+$/, ''), apiKey: ctx.config.openaiApiKey });
    embeddingModels.set(ctx, (model = provider.embeddingModel(ctx.config.embeddingModel!)));
  }
  return model;
}

/** maxRetries: the indexing job leaves retrying to its queue (0); a search retries once. */
export async function embedTexts(ctx: Context, texts: string[], options: { maxRetries?: number } = {}): Promise<number[][]> {
  if (texts.length === 0) return [];
  const [model, { embedMany }] = await Promise.all([embeddingModel(ctx), import('ai')]);
  const vectors: number[][] = [];
  for (let start = 0; start < texts.length; start += BATCH) {
    const { embeddings } = await embedMany({ model, values: texts.slice(start, start + BATCH), maxRetries: options.maxRetries ?? 1, abortSignal: AbortSignal.timeout(60_000) });
    vectors.push(...embeddings);
  }
  const dims = ctx.config.embeddingDimensions;
  const wrong = vectors.find((v) => v.length !== dims);
  if (wrong) throw new Error(`the embedding model gave ${wrong.length} dimensions, PARLEY_EMBEDDING_DIMENSIONS says ${dims}`);
  return vectors;
}

/** pgvector's text form. */
export function vectorLiteral(vector: number[]): string {
  return `[${vector.join(',')}]`;
}

const ready = new WeakMap<Context, Promise<string>>();

/**
 * The vector table for the configured dimension count, made on first use: an HNSW index
 * needs a fixed dimension, which is operator configuration rather than a migration.
 */
export function vectorTable(ctx: Context): Promise<string> {
  let table = ready.get(ctx);
  if (!table) {
    const dims = ctx.config.embeddingDimensions;
    const name = `passage_vectors_${dims}`;
    table = ctx.database
      .exec(
        `create table if not exists ${name} (
           passage_id text primary key references passages(id) on delete cascade,
           agent_id text not null,
           model text not null,
           embedding vector(${dims}) not null
         );
         create index if not exists ${name}_agent on ${name} (agent_id);
         create index if not exists ${name}_hnsw on ${name} using hnsw (embedding vector_cosine_ops);`,
      )
      .then(() => name);
    table.catch(() => ready.delete(ctx));
    ready.set(ctx, table);
  }
  return table;
}
