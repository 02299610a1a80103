/**
 * Answer quality on the corpus of small-business websites (test/fixtures/sites): each
 * site crawled with default settings, every question asked through POST /chat with the
 * offline model and lexical retrieval, and the figures printed per site. Issue 26's
 * targets are 90% answered with the facts, at most 3% declined wrongly, 95% of
 * uncovered questions declined, no source listed that the answer did not use; the floors
 * asserted here are what the service reaches today, so a change that makes answers worse
 * fails (raise them as answers improve). PARLEY_QUALITY_VERBOSE=1 prints every answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { fixtureSiteNames, serveFixtureSite, type FixtureSite, type SiteQuestion } from '../../../test/support/fixture-sites.ts';
import { LANGUAGES } from '../agents/schemas.ts';
import { PHRASES } from './language.ts';

interface Answer {
  answer: string;
  grounding: string | null;
  confidence: number;
  sources: Array<{ id: string; name: string }>;
}

/** The share of each kind of question that must go right (a floor, not the target). */
const FLOORS = { answered: 0.8, wronglyDeclinedAtMost: 0.14, uncoveredDeclined: 0.95 };
/** A site's own floors where it is above the others (facturo: 97% answered, none wrongly declined since the seventh step; bonenbaas 92% and none, clearwater 95% and 3% since the eleventh: docs/chat.md). */
const SITE_FLOORS: Record<string, Partial<typeof FLOORS>> = {
  bonenbaas: { answered: 0.92, wronglyDeclinedAtMost: 0.03 },
  clearwater: { answered: 0.94, wronglyDeclinedAtMost: 0.03 },
  facturo: { answered: 0.93, wronglyDeclinedAtMost: 0.03 },
};

const normalise = (text: string) => text.toLowerCase().replace(/[\u00a0\u202f]/g, ' ').replace(/\s+/g, ' ');

export function isDecline(reply: Answer): boolean {
  return LANGUAGES.some((language) => reply.answer.startsWith(PHRASES[language].decline)) || reply.grounding === 'unsupported';
}

export function holdsFacts(reply: Answer, question: SiteQuestion): boolean {
  const answer = normalise(reply.answer);
  return (question.expect ?? []).every((fact) => answer.includes(normalise(fact)));
}

/**
 * The sources listed that the answer did not use: under a decline every one; otherwise
 * those its source line (the offline model names the sources it quotes) does not name.
 */
export function unusedSources(reply: Answer): string[] {
  if (isDecline(reply)) return reply.sources.map((source) => source.name);
  const sourceLine = reply.answer.split('\n').at(-1) ?? '';
  return reply.sources.map((source) => source.name).filter((name) => !sourceLine.includes(name));
}

/** PARLEY_QUALITY_VERBOSE=1 prints every question with its answer and sources, not only the misses. */
const VERBOSE = process.env.PARLEY_QUALITY_VERBOSE === '1';

const share = (count: number, total: number) => `${count}/${total} (${total === 0 ? 0 : Math.round((100 * count) / total)}%)`;

async function waitForCrawl(service: Service, key: string, agent: string): Promise<Record<string, any>> {
  const until = Date.now() + 60_000;
  for (;;) {
    const crawl = (await service.api('GET', `/agents/${agent}/crawl`, { key })).body.data;
    if (!['queued', 'running'].includes(crawl.status) || Date.now() > until) return crawl;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const name of fixtureSiteNames()) {
  describe(`answer quality on the ${name} site (crawled with default settings, offline model)`, () => {
    let service: Service;
    let ws: SeededWorkspace;
    let site: FixtureSite;
    let agent: string;

    before(async () => {
      service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
      ws = await service.seedWorkspace({ plan: 'studio' });
      site = await serveFixtureSite(name);
      const created = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name, useCase: 'support', language: site.questions.language } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      agent = created.body.data.id;
      const crawl = await service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'website', url: `${site.origin}/` } });
      assert.equal(crawl.status, 201, JSON.stringify(crawl.body));
    });
    after(async () => {
      await site?.close();
      await service?.close();
    });

    const ask = async (question: SiteQuestion): Promise<Answer> => {
      const reply = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: question.q } });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      return reply.body.data;
    };

    test('the crawl completes and reads the site’s pages', async () => {
      const crawl = await waitForCrawl(service, ws.keys.manage, agent);
      assert.equal(crawl.status, 'completed', JSON.stringify(crawl));
      console.log(`# ${name}: crawl ${JSON.stringify({ processed: crawl.processed, failed: crawl.failed, turnedAway: crawl.turnedAway })}`);
      assert.ok(crawl.processed >= 8, JSON.stringify(crawl));
    });

    test('a decline offers the site’s contact details, in the answer’s language', async () => {
      let question: SiteQuestion | undefined;
      let reply: Answer | undefined;
      for (question of site.questions.uncovered) {
        reply = await ask(question);
        if (isDecline(reply)) break;
      }
      assert.ok(question && reply && isDecline(reply), 'an uncovered question is declined');
      const language = question.language ?? site.questions.language;
      const [before] = PHRASES[language].reach.split('{contact}');
      const offered = reply.answer.slice(reply.answer.indexOf(before) + before.length);
      assert.ok(reply.answer.includes(before), reply.answer);
      assert.match(offered, /\d[\d ]{6,}\d · \S+@\S+\.example/, reply.answer);
      assert.deepEqual(reply.sources, []);
    });

    test('answered with the facts, wrongly declined, and uncovered questions declined, per kind of question', async () => {
      const { answerable, otherLanguage, uncovered } = site.questions;
      const misses: string[] = [];
      const unused: string[] = [];
      const unmarked: string[] = [];
      let answered = 0;
      let wronglyDeclined = 0;
      const line = (question: SiteQuestion, reply: Answer) =>
        `${question.q}${question.expect ? ` (${question.expect.join(', ')})` : ''} -> ${reply.answer.replace(/\n+/g, ' / ').slice(0, VERBOSE ? 400 : 160)}` +
        (VERBOSE ? ` [confidence ${reply.confidence}; sources: ${reply.sources.map((source) => source.name).join(', ') || 'none'}]` : '');
      const checkSources = (question: SiteQuestion, reply: Answer) => {
        if (unusedSources(reply).length > 0) unused.push(`${question.q} -> ${unusedSources(reply).join(', ')}`);
      };
      for (const question of [...answerable, ...otherLanguage]) {
        const reply = await ask(question);
        const ok = holdsFacts(reply, question) && !isDecline(reply);
        if (ok) answered++;
        else misses.push(line(question, reply));
        if (VERBOSE && ok) console.log(`#   ok: ${line(question, reply)}`);
        if (isDecline(reply)) wronglyDeclined++;
        checkSources(question, reply);
        // An answer quoted from the site's material in another language opens with one line saying so, in the question's language.
        const [lineStart] = PHRASES[question.language ?? site.questions.language].otherLanguage.split('{language}');
        if (question.language && !isDecline(reply) && !reply.answer.startsWith(lineStart)) unmarked.push(line(question, reply));
      }
      const answeredUncovered: string[] = [];
      for (const question of uncovered) {
        const reply = await ask(question);
        if (!isDecline(reply)) answeredUncovered.push(line(question, reply));
        else if (VERBOSE) console.log(`#   declined, not covered: ${line(question, reply)}`);
        checkSources(question, reply);
      }
      const covered = answerable.length + otherLanguage.length;
      const declinedUncovered = uncovered.length - answeredUncovered.length;
      const asked = covered + uncovered.length;
      console.log(
        `# ${name}: answered with the facts ${share(answered, covered)}; wrongly declined ${share(wronglyDeclined, covered)}; uncovered declined ${share(declinedUncovered, uncovered.length)}; answers listing a source they did not use ${share(unused.length, asked)}`,
      );
      for (const miss of misses) console.log(`#   miss: ${miss}`);
      for (const miss of answeredUncovered) console.log(`#   answered, not covered: ${miss}`);
      for (const miss of unused) console.log(`#   unused source: ${miss}`);
      const floors = { ...FLOORS, ...SITE_FLOORS[name] };
      assert.ok(answered / covered >= floors.answered, `answered ${share(answered, covered)}`);
      assert.ok(wronglyDeclined / covered <= floors.wronglyDeclinedAtMost, `wrongly declined ${share(wronglyDeclined, covered)}`);
      assert.ok(declinedUncovered / uncovered.length >= floors.uncoveredDeclined, `uncovered declined ${share(declinedUncovered, uncovered.length)}`);
      assert.deepEqual(unused, [], 'no answer lists a source it did not use (none under a decline)');
      assert.deepEqual(unmarked, [], 'an answer from material in another language says so');
    });
  });
}
