import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { searchPassages } from '../knowledge/search.ts';
import { FOREIGN_CORPORA, UNCOVERED_QUESTIONS, WORKSHOP_CORPUS, WORKSHOP_QUESTIONS } from './quality-corpus.ts';
import { PHRASES } from './language.ts';
import { seedTexts } from './test-support.ts';

// No OPENAI_BASE_URL: the lexical index alone, and the offline model answers.
const env = { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' };

function share(count: number, total: number): string {
  return `${count}/${total} (${Math.round((100 * count) / total)}%)`;
}

async function newAgent(service: Service, ws: SeededWorkspace, name: string, language = 'en'): Promise<string> {
  const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name, useCase: 'general', language } });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return reply.body.data.id;
}

describe('answer quality on a bicycle workshop’s material (lexical index, offline model)', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;
  const sourceByKey = new Map<string, string>();

  before(async () => {
    service = await startService({ env });
    ws = await service.seedWorkspace({ plan: 'studio' });
    agent = await newAgent(service, ws, 'Spoke & Chain');
    const ids = await seedTexts(service, ws.keys.manage, agent, WORKSHOP_CORPUS.map((p) => ({ title: p.title, content: p.text })));
    WORKSHOP_CORPUS.forEach((p, i) => sourceByKey.set(p.key, ids[i]));
  });
  after(async () => service?.close());

  const ask = async (message: string) => {
    const reply = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data as { answer: string; grounding: string | null; confidence: number; sources: Array<{ id: string; name: string }> };
  };

  test('the passage that answers is in the top 3 of retrieval for at least 90% of paraphrased questions', async () => {
    const misses: string[] = [];
    for (const { question, expected } of WORKSHOP_QUESTIONS) {
      const hits = await searchPassages(service.ctx, { agentId: agent, query: question, topK: 3, minSimilarity: 0 });
      if (!hits.some((hit) => hit.sourceId === sourceByKey.get(expected))) misses.push(`${question} -> ${hits.map((h) => h.title).join(' | ') || 'nothing'}`);
    }
    const right = WORKSHOP_QUESTIONS.length - misses.length;
    console.log(`# chat quality, right passage in the top 3 (BM25): ${share(right, WORKSHOP_QUESTIONS.length)}`);
    for (const miss of misses) console.log(`#   miss: ${miss}`);
    assert.ok(right / WORKSHOP_QUESTIONS.length >= 0.9, share(right, WORKSHOP_QUESTIONS.length));
  });

  test('the offline answer holds the fact asked for in at least 80% of questions, and names the source it quotes', async () => {
    const misses: string[] = [];
    for (const { question, fact } of WORKSHOP_QUESTIONS) {
      const reply = await ask(question);
      if (!reply.answer.toLowerCase().includes(fact.toLowerCase())) {
        misses.push(`${question} (${fact}) -> ${reply.answer.replace(/\n+/g, ' / ')}`);
        continue;
      }
      const sourceLine = reply.answer.split('\n').at(-1)!;
      assert.match(sourceLine, /^Sources?: /, reply.answer);
      const named = sourceLine.replace(/^Sources?: /, '').split(', ');
      for (const name of named) assert.ok(reply.sources.some((s) => s.name === name), `${name} is not among the reply's sources`);
      assert.notEqual(reply.grounding, 'unsupported', reply.answer);
    }
    const right = WORKSHOP_QUESTIONS.length - misses.length;
    console.log(`# chat quality, offline answer holds the fact: ${share(right, WORKSHOP_QUESTIONS.length)}`);
    for (const miss of misses) console.log(`#   miss: ${miss}`);
    assert.ok(right / WORKSHOP_QUESTIONS.length >= 0.8, share(right, WORKSHOP_QUESTIONS.length));
  });

  const uncoveredAnswered = async () => {
    const answered: string[] = [];
    for (const question of UNCOVERED_QUESTIONS) {
      const reply = await ask(question);
      const declined = reply.answer === PHRASES.en.decline;
      if (!declined && reply.grounding !== 'unsupported') answered.push(`${question} -> ${reply.answer.replace(/\n+/g, ' / ')}`);
      if (declined) assert.ok(reply.confidence <= 20, `${question}: confidence ${reply.confidence}`);
    }
    return answered;
  };

  test('every question the material does not cover is declined or marked unsupported, with low confidence', async () => {
    const answered = await uncoveredAnswered();
    console.log(`# chat quality, uncovered questions declined or unsupported: ${share(UNCOVERED_QUESTIONS.length - answered.length, UNCOVERED_QUESTIONS.length)}`);
    for (const miss of answered) console.log(`#   answered: ${miss}`);
    assert.deepEqual(answered, []);
  });

  test('the offline model declines them itself when retrieval lets every passage through (minSimilarity 0)', async () => {
    const patch = (retrieval: Record<string, number>) => service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { retrieval } });
    const before = (await service.api('GET', `/agents/${agent}`, { key: ws.keys.read })).body.data.retrieval;
    assert.equal((await patch({ minSimilarity: 0 })).status, 200);
    try {
      const answered = await uncoveredAnswered();
      for (const miss of answered) console.log(`#   answered at minSimilarity 0: ${miss}`);
      assert.deepEqual(answered, []);
    } finally {
      await patch(before);
    }
  });
});

describe('the offline model’s own sentences in the answer’s language', () => {
  let service: Service;
  let ws: SeededWorkspace;
  const agents = new Map<string, string>();

  before(async () => {
    service = await startService({ env });
    ws = await service.seedWorkspace({ plan: 'studio' });
    for (const corpus of FOREIGN_CORPORA) {
      const agent = await newAgent(service, ws, `Werkplaats ${corpus.language}`, corpus.language);
      await seedTexts(service, ws.keys.manage, agent, corpus.passages);
      agents.set(corpus.language, agent);
    }
  });
  after(async () => service?.close());

  const ask = async (language: string, body: Record<string, unknown>) => {
    const reply = await service.api('POST', `/agents/${agents.get(language)}/chat`, { key: ws.keys.chat, body });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data as { answer: string; grounding: string | null };
  };

  for (const corpus of FOREIGN_CORPORA) {
    test(`${corpus.language}: the answer quotes the passage and ends with the source line in ${corpus.language}; an uncovered question is declined in ${corpus.language}`, async () => {
      const covered = await ask(corpus.language, { message: corpus.covered.question });
      assert.ok(covered.answer.includes(corpus.covered.fact), covered.answer);
      assert.equal(covered.answer.split('\n').at(-1), corpus.covered.sourceLine);
      assert.equal(covered.grounding, 'supported');
      const uncovered = await ask(corpus.language, { message: corpus.uncovered });
      assert.match(uncovered.answer, corpus.declineStart);
      assert.equal(uncovered.grounding, 'unsupported');
    });
  }

  test('asked in English of a Dutch agent, the decline is in English; with language fr it is in French', async () => {
    const english = await ask('nl', { message: 'Do you sell skateboards?' });
    assert.equal(english.answer, PHRASES.en.decline);
    const french = await ask('nl', { message: 'Verkopen jullie ook skateboards?', language: 'fr' });
    assert.equal(french.answer, PHRASES.fr.decline);
  });
});
