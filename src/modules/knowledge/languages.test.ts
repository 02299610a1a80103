import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { eld } from 'eld/small';
import { LANGUAGES } from '../agents/schemas.ts';
import { WORKSHOP_CORPUS } from '../chat/quality-corpus.ts';
import { eldSmallSet, FIVE_LANGUAGES_FILE, fiveLanguagesOf } from './eld-five-languages.ts';
import { detectLanguage, detectLanguageNow, detectorRuns } from './languages.ts';

describe("language detection on the five languages' n-grams alone (eld-five-languages.json)", () => {
  test("the file is eld's small set narrowed to the five: every n-gram of theirs, with their weights at their places", async () => {
    assert.deepEqual(JSON.parse(readFileSync(FIVE_LANGUAGES_FILE, 'utf8')), fiveLanguagesOf(await eldSmallSet()), 'stale: run node src/modules/knowledge/eld-five-languages.ts');
  });

  test("it tells every text's language (or none) as eld's whole small set narrowed to the five does", async () => {
    eld.setLanguageSubset([...LANGUAGES]);
    const texts = [
      ...WORKSHOP_CORPUS.flatMap((passage) => [passage.title, passage.text]),
      'Hello', 'Kosten?', '12345', 'Wie lange dauert eine Reparatur?', 'Bezorgen jullie in België?', '¿Cuánto cuesta el envío?',
      'Combien coûte la livraison ?', 'Привет, как дела?', 'これは日本語です', 'Ciao, come stai?', 'Hej, hur mår du?', '',
    ];
    for (const text of texts) {
      const whole = eld.detect(text);
      const expected = whole.language && (LANGUAGES as readonly string[]).includes(whole.language) && (whole.isReliable() || (() => {
        const [first = 0, second = 0] = Object.values(whole.getScores()).sort((a, b) => b - a);
        return first - second >= 0.1;
      })()) ? whole.language : undefined;
      assert.equal(await detectLanguage(text), expected, text);
    }
  });

  test('the synchronous reading tells what the awaited one tells, once the detector is loaded', async () => {
    const text = 'Met een abonnement krijg je elke twee of vier weken vers gebrande koffie in de brievenbus.';
    assert.equal(await detectLanguage(text), 'nl');
    assert.equal(detectLanguageNow(text), 'nl');
  });

  test('a text read again is not detected again: the same language from the texts read lately, also for a longer text whose part read is the same', async () => {
    const text = 'Wie lange dauert die Lieferung nach Österreich, und was kostet sie für ein Paket von zwei Kilo?';
    const first = await detectLanguage(text);
    const runs = detectorRuns();
    assert.equal(await detectLanguage(text), first);
    assert.equal(detectLanguageNow(text), first);
    assert.equal(detectorRuns(), runs, 'served from the texts read lately');
    const long = `${'Le café est torréfié chaque semaine dans notre atelier à Lyon. '.repeat(20)}`;
    const language = await detectLanguage(long);
    assert.equal(language, 'fr');
    const runsAfterLong = detectorRuns();
    // Only the first DETECTED_CHARS (1,000) are read: a text that differs after them is the same reading.
    assert.equal(await detectLanguage(`${long.slice(0, 1000)} The rest is English and is never read.`), 'fr');
    assert.equal(detectorRuns(), runsAfterLong);
    assert.equal(await detectLanguage('Bezorgen jullie ook in België en wat kost dat?'), 'nl');
    assert.equal(detectorRuns(), runsAfterLong + 1, 'a new text is detected');
  });
});
