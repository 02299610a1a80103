/**
 * The passages an answer is made from: the agent's search index with its topK and
 * minSimilarity, the question read in its own language (knowledge/search.ts), a short
 * follow-up searched together with the question it follows,
 * and the passages of the page the visitor is on first when the agent has read it.
 */
import type { Context } from '../../context.ts';
import { searchPassages, type PassageHit } from '../knowledge/search.ts';
import { detectLanguage } from '../knowledge/languages.ts';
import { normaliseUrl } from '../knowledge/crawl/urls.ts';
import type { Agent } from '../agents/schemas.ts';
import type { PastMessage } from './prompt.ts';
import { contentTerms, coverage } from './text.ts';

const FOLLOW_UP_START = /^(and|but|also|what about|how about|and if|or|en|maar|ook|et|mais|aussi|und|aber|auch|y|pero|también)\b/i;
/** Page passages put first, at most. */
const PAGE_PASSAGES = 2;

export interface Retrieved {
  passages: PassageHit[];
  /** The earlier question a short follow-up was searched with. */
  followsUp: string | null;
}

/** A question is a follow-up when it opens like one ("and on Sundays?") or holds too little to stand alone. */
export function followedUpQuestion(question: string, history: PastMessage[]): string | null {
  const previous = [...history].reverse().find((m) => m.role === 'user');
  if (!previous) return null;
  const short = contentTerms(question).length <= 2;
  return short || FOLLOW_UP_START.test(question.trim()) ? previous.content : null;
}

/** The page's address as the agent stores pages: http(s) only, query string and fragment never read. */
export function pageAddress(raw: string | undefined): string | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.search = '';
  url.hash = '';
  return normaliseUrl(url.href);
}

export async function retrieve(ctx: Context, agent: Agent, question: string, history: PastMessage[], page: string | null): Promise<Retrieved> {
  const followsUp = followedUpQuestion(question, history);
  const query = followsUp ? `${followsUp}\n${question}` : question;
  const { topK, minSimilarity } = agent.retrieval;
  const questionLanguage = await detectLanguage(query);
  const [found, onPage] = await Promise.all([
    searchPassages(ctx, { agentId: agent.id, query, topK, minSimilarity, language: agent.language, questionLanguage }),
    page ? pagePassages(ctx, agent.id, page, query) : Promise.resolve([]),
  ]);
  if (onPage.length === 0) return { passages: found, followsUp };
  const first = new Set(onPage.map((p) => p.passageId));
  return { passages: [...onPage, ...found.filter((p) => !first.has(p.passageId))].slice(0, topK), followsUp };
}

/** The page source's passages that share words with the question, best first (scored by the share of the question they hold). */
async function pagePassages(ctx: Context, agentId: string, url: string, query: string): Promise<PassageHit[]> {
  const rows = await ctx.db
    .selectFrom('passages as p')
    .innerJoin('sources as s', 's.id', 'p.source_id')
    .select(['p.id', 'p.source_id', 's.name', 'p.url', 'p.title', 'p.text'])
    .where('s.agent_id', '=', agentId)
    .where('s.type', '=', 'website')
    .where('s.url', '=', url)
    .where('s.status', '=', 'ready')
    .orderBy('p.position')
    .limit(200)
    .execute();
  if (rows.length === 0) return [];
  const terms = new Map(contentTerms(query).map((t) => [t, 1]));
  return rows
    .map((row) => ({
      passageId: row.id,
      sourceId: row.source_id,
      sourceName: row.name,
      url: row.url,
      title: row.title,
      text: row.text,
      score: Math.round(coverage(terms, new Set(contentTerms(`${row.title} ${row.text}`))) * 10_000) / 10_000,
    }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, PAGE_PASSAGES);
}
