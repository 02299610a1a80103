/**
 * The passages an answer is made from: the agent's search index with its topK and
 * minSimilarity, the question read in its own language (knowledge/search.ts), a short
 * follow-up searched together with the question it follows,
 * and the passages of the page the visitor is on first when the agent has read it.
 */
import type { Context } from '../../context.ts';
import { prepared } from '../../platform/db.ts';
import { searchPassages, type PassageHit } from '../knowledge/search.ts';
import { detectLanguage } from '../knowledge/languages.ts';
import { normaliseUrl } from '../knowledge/crawl/urls.ts';
import type { Agent } from '../agents/schemas.ts';
import type { PastMessage } from './prompt.ts';
import { askedFor, contentTerms, coverage, weekdayName, weekdaysNamed } from './text.ts';
import type { Language } from '../agents/schemas.ts';
import { SITE_FACTS_FRAGMENT } from '../knowledge/crawl/contact-details.ts';

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
  const asksContact = askedFor(query).kinds.some((kind) => CONTACT_KINDS.has(kind));
  const [searched, onPage, facts] = await Promise.all([
    searchPassages(ctx, { agentId: agent.id, query: withDaysNamed(query, questionLanguage, agent.language), topK, minSimilarity, language: agent.language, questionLanguage }),
    page ? pagePassages(ctx, agent.id, page, query) : Promise.resolve([]),
    asksContact ? siteFactPassages(ctx, agent.id) : Promise.resolve([]),
  ]);
  // The site's contact facts answer a question for a phone number, an address or an e-mail address whatever its words.
  const held = new Set(searched.map((p) => p.passageId));
  const found = facts.length === 0 ? searched : [...facts.filter((p) => !held.has(p.passageId)), ...searched].slice(0, Math.max(topK, facts.length));
  if (onPage.length === 0) return { passages: found, followsUp };
  const first = new Set(onPage.map((p) => p.passageId));
  return { passages: [...onPage, ...found.filter((p) => !first.has(p.passageId))].slice(0, topK), followsUp };
}

/**
 * A question in another language than the agent's is searched also with the days of the
 * week it names in the agent's language ("Samstag" also as "Saturday"): the material
 * shares no other word with it.
 */
export function withDaysNamed(query: string, questionLanguage: Language | undefined, language: Language): string {
  if (!questionLanguage || questionLanguage === language) return query;
  const days = weekdaysNamed(query);
  return days.length === 0 ? query : `${query}\n${days.map((day) => weekdayName(day, language)).join(' ')}`;
}

/** The kinds of fact (text.ts, askedFor) that a site's contact facts hold. */
const CONTACT_KINDS = new Set(['phone', 'address', 'email']);
/** Site facts passages put in, at most (a site's facts are one or two passages). */
const FACT_PASSAGES = 3;

/**
 * The passages of the site facts the crawl kept (the header's and footer's contact details
 * and opening hours, at the site's address with #contact-details), scored 1: they are what
 * a question for the business's phone number, address or e-mail address asks for.
 */
export async function siteFactPassages(ctx: Context, agentId: string): Promise<PassageHit[]> {
  // The facts are a source of their own (its address the site's with the fragment): found among the agent's sources, then its passages by source.
  const { rows } = await prepared(ctx.db, websitePassages(ctx, agentId).where('s.url', 'like', `%${SITE_FACTS_FRAGMENT}`).limit(FACT_PASSAGES));
  return rows.map((row) => hitOf(row, 1));
}

/** The passages of an agent's website sources that are ready, in their page's order (prepared: read every answer). */
function websitePassages(ctx: Context, agentId: string) {
  return ctx.db
    .selectFrom('passages as p')
    .innerJoin('sources as s', 's.id', 'p.source_id')
    .select(['p.id', 'p.source_id', 's.name', 'p.url', 'p.title', 'p.text'])
    .where('s.agent_id', '=', agentId)
    .where('s.type', '=', 'website')
    .where('s.status', '=', 'ready')
    .orderBy('p.position');
}

function hitOf(row: { id: string; source_id: string; name: string; url: string | null; title: string; text: string }, score: number): PassageHit {
  return { passageId: row.id, sourceId: row.source_id, sourceName: row.name, url: row.url, title: row.title, text: row.text, score };
}

/** The page source's passages that share words with the question, best first (scored by the share of the question they hold). */
async function pagePassages(ctx: Context, agentId: string, url: string, query: string): Promise<PassageHit[]> {
  const { rows } = await prepared(ctx.db, websitePassages(ctx, agentId).where('s.url', '=', url).limit(200));
  if (rows.length === 0) return [];
  const terms = new Map(contentTerms(query).map((t) => [t, 1]));
  return rows
    .map((row) => hitOf(row, Math.round(coverage(terms, new Set(contentTerms(`${row.title} ${row.text}`))) * 10_000) / 10_000))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, PAGE_PASSAGES);
}
