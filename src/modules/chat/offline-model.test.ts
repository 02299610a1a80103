import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { generateText, streamText } from 'ai';
import { LANGUAGES } from '../agents/schemas.ts';
import { answerLanguage, detectLanguage, PHRASES } from './language.ts';
import { ANSWER_THRESHOLD, composeOfflineAnswer, offlineLanguageModel, withLanguageLine, type OfflineContext } from './offline-model.ts';
import { askedFor, contentTerms, heldKinds, questionTerms, questionVerbs, sentences, stem, weekdaysNamed } from './text.ts';
import { withDaysNamed } from './retrieval.ts';
import { UNCOVERED_QUESTIONS, WORKSHOP_CORPUS, WORKSHOP_QUESTIONS } from './quality-corpus.ts';

const passage = (title: string, text: string, score = 0.8) => ({ sourceName: title, title, text, score });
const ask = (question: string, passages: OfflineContext['passages'], extra: Partial<OfflineContext> = {}) =>
  composeOfflineAnswer({ question, followsUp: null, language: 'en', passages, ...extra });

const HOURS = passage('Opening hours', 'The workshop is open Tuesday to Friday from 8:30 to 18:00. We are closed on Sundays and Mondays.');
const PRICES = passage('Prices', 'A basic service costs 59 euros. A full service costs 129 euros and includes new cables. Parts are charged separately.');
const COURSE = passage('Repair course', 'On the first Wednesday of each month we teach an evening course in bicycle maintenance. It costs 25 euros including coffee.');

describe('sentences', () => {
  test('a sentence ends at . ! or ? before a capital or a digit, and at a line break', () => {
    assert.deepEqual(sentences('We are open. Are you coming? Yes! 12 bikes wait.\nNew line'), ['We are open.', 'Are you coming?', 'Yes!', '12 bikes wait.', 'New line']);
  });

  test('numbers such as 4.95, 9:00, 14.00 and 3,000 do not end a sentence', () => {
    assert.deepEqual(sentences('The fee is 4.95 euros per parcel. We open at 9:00 and close at 14.00 uur. Every 3,000 km.'), [
      'The fee is 4.95 euros per parcel.',
      'We open at 9:00 and close at 14.00 uur.',
      'Every 3,000 km.',
    ]);
  });

  test('abbreviations do not end a sentence: one letter, e.g., Dr., No., approx.', () => {
    assert.deepEqual(sentences('Ask Dr. Jansen. Bring a part, e.g. A chain. We are at No. 12 Main St. Opposite the bank. It takes approx. 5 minutes.'), [
      'Ask Dr. Jansen.',
      'Bring a part, e.g. A chain.',
      'We are at No. 12 Main St. Opposite the bank.',
      'It takes approx. 5 minutes.',
    ]);
    assert.deepEqual(sentences('Call J. Smith today. He knows.'), ['Call J. Smith today.', 'He knows.']);
    assert.deepEqual(sentences('Do you ship abroad? No. We deliver in the Netherlands only.'), ['Do you ship abroad?', 'No.', 'We deliver in the Netherlands only.']);
  });

  test('an abbreviation is the whole last word: read at the end of a long sentence, not in a longer word ending alike', () => {
    assert.deepEqual(sentences('We are at No. 12 Main St. Opposite the bank, two doors from the practice of Dr. Jansen. He knows.'), [
      'We are at No. 12 Main St. Opposite the bank, two doors from the practice of Dr. Jansen.',
      'He knows.',
    ]);
    assert.deepEqual(sentences('Ask for the Quadrophenicaldr. Then pay.'), ['Ask for the Quadrophenicaldr.', 'Then pay.']);
  });

  test('bullet and number marks are dropped; a lower-case word after a full stop continues the sentence', () => {
    assert.deepEqual(sentences('- first item\n* second item\n• third\n1. fourth\n2) fifth'), ['first item', 'second item', 'third', 'fourth', 'fifth']);
    assert.deepEqual(sentences('See the site at shop.example. then call.'), ['See the site at shop.example. then call.']);
  });
});

describe('stems and terms', () => {
  test('forms of one word share a stem', () => {
    const groups = [
      ['fit', 'fitting', 'fits'],
      ['insurer', 'insurers', 'insured'],
      ['close', 'closed', 'closes', 'closing'],
      ['battery', 'batteries'],
      ['service', 'services', 'serviced', 'servicing'],
      ['day', 'days'],
      ['repair', 'repairs', 'repaired', 'repairing'],
      ['skip', 'skipping', 'skipped'],
      ['fiets', 'fietsen'],
      ['réparation', 'réparations', 'réparer'],
      ['rueda', 'ruedas'],
    ];
    for (const group of groups) assert.deepEqual(new Set(group.map((word) => stem(word))).size, 1, `${group.join(', ')}: ${group.map((word) => stem(word)).join(', ')}`);
  });

  test('in Spanish the persons, infinitive and participle of a verb share a stem, and nouns their plural', () => {
    const groups = [
      ['abren', 'abrimos', 'abrir', 'abre'],
      ['domingo', 'domingos'],
      ['hora', 'horas'],
      ['envío', 'envíos', 'enviamos'],
    ];
    for (const group of groups) assert.deepEqual(new Set(group.map((word) => stem(word, 'es'))).size, 1, `${group.join(', ')}: ${group.map((word) => stem(word, 'es')).join(', ')}`);
    assert.notEqual(stem('abril', 'es'), stem('abrir', 'es'));
  });

  test('a stem keeps a double l, s or z, numbers whole, and at most seven letters', () => {
    assert.equal(stem('called'), stem('call'));
    assert.equal(stem('passes'), 'pass');
    assert.equal(stem('4.95'), '4.95');
    assert.equal(stem('18:00'), '18:00');
    assert.equal(stem('Öffnungszeiten'), 'offnung');
    assert.equal(stem('bus'), 'bus');
  });

  test('content terms: stop words of the five languages and single letters dropped, accents folded, hyphenated words also by their parts', () => {
    assert.deepEqual(contentTerms('What is the price of a second-hand bike?'), ['pric', 'second-', 'second', 'hand', 'bike']);
    assert.deepEqual(contentTerms('Wat zijn de openingstijden van de winkel?'), ['opening', 'winkel']);
    assert.deepEqual(contentTerms('Où est la boutique ?'), ['boutiqu']);
  });

  test('question terms leave out the words any question uses, unless nothing else is left', () => {
    assert.deepEqual(questionTerms('Can I bring my dog into the shop?'), ['dog', 'shop']);
    assert.deepEqual(questionTerms('Can I bring it?'), ['bring']);
  });
});

describe('the answer’s language', () => {
  test('a question’s language is detected from a few words; a word that could be several languages shows none', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['Do you sell helmets?', 'en'],
      ['Verkopen jullie helmen?', 'nl'],
      ['Combien coûte la révision ?', 'fr'],
      ['Was kostet eine Inspektion?', 'de'],
      ['¿Cuánto cuesta la revisión?', 'es'],
      ['Bonjour', 'fr'],
      ['Prijs?', 'nl'],
      ['Hello', undefined],
      ['Kosten?', undefined],
      ['E-bike', undefined],
      ['12:00', undefined],
      ['???', undefined],
    ];
    for (const [text, language] of cases) assert.equal(await detectLanguage(text), language, text);
  });

  test('asked for, else the question’s own, else the agent’s', async () => {
    assert.equal(await answerLanguage('de', 'Do you sell helmets?', 'en'), 'de');
    assert.equal(await answerLanguage('it', 'Verkopen jullie helmen?', 'en'), 'nl');
    assert.equal(await answerLanguage(undefined, 'Hello', 'nl'), 'nl');
  });
});

describe('what a question asks for', () => {
  test('the asking words become a kind of fact, and the sentences holding one are found', () => {
    const cases: Array<[string, string[], string[]]> = [
      ['How much does a full service cost?', ['money'], ['full', 'servic']],
      ['What is the price of a full service?', ['money'], ['full', 'servic']],
      ['What time do you close on Fridays?', ['clock'], ['clo', 'friday']],
      ['How long does a puncture repair take?', ['duration'], ['punctur', 'repair']],
      ['How many people can join?', ['number'], ['peopl', 'join']],
      ['How often should I replace my chain?', ['often'], ['replac', 'chai']],
      ['What is your phone number?', ['phone'], []],
      ['When is the course held?', ['when'], ['cour', 'held']],
      ['Wat kost een band?', ['money'], ['band']],
      ['¿Cuándo abren?', ['when'], ['abre']],
      ['Do you sell bikes?', [], ['sell', 'bike']],
    ];
    for (const [question, kinds, terms] of cases) {
      const asked = askedFor(question);
      assert.deepEqual(asked.kinds, kinds, question);
      assert.deepEqual(questionTerms(asked.rest), terms, question);
    }
    const all = ['money', 'clock', 'duration', 'number', 'often', 'phone', 'when'];
    assert.deepEqual(heldKinds('It costs 59 euros.', all), ['number', 'money']);
    assert.deepEqual(heldKinds('Open from 8:30 to 18:00 on Friday.', all), ['clock', 'when', 'number']);
    assert.deepEqual(heldKinds('Repairs take about 30 minutes.', ['duration']), ['duration']);
    assert.deepEqual(heldKinds('It was bought in 2019.', ['when']), ['when'], 'a year says when');
    assert.deepEqual(heldKinds('Replace it every 3,000 kilometres.', ['often']), ['often']);
    assert.deepEqual(heldKinds('Call us on 050 312 4455.', ['phone']), ['phone']);
    assert.deepEqual(heldKinds('The estimate is free of charge.', ['money']), ['money']);
    assert.deepEqual(heldKinds('The fee is 4.95 euros.', ['clock']), [], 'an amount is not a time of day');
  });

  test('an address is held by a postal code or under its label; "e-mail address" asks for an e-mail address only', () => {
    assert.deepEqual(askedFor('What is your e-mail address?').kinds, ['email']);
    assert.deepEqual(askedFor('Quelle est votre adresse e-mail ?').kinds, ['email']);
    assert.deepEqual(askedFor('What is the delivery address?').kinds, ['address']);
    assert.deepEqual(heldKinds('Oudegracht 214, 3511 NS Utrecht.', ['address']), ['address']);
    assert.deepEqual(heldKinds('Delivery address: Canal Street 12.', ['address']), ['address']);
    assert.deepEqual(heldKinds('Afleveradres: Kerkstraat 5.', ['address']), [], 'a Dutch compound is no label of its own');
    assert.deepEqual(heldKinds('Adresse : 12 rue des Lilas.', ['address']), ['address']);
    assert.deepEqual(heldKinds('E-mail address: hallo@example.nl.', ['address']), [], 'an e-mail address’s label holds no postal address');
    assert.deepEqual(heldKinds('Mail us at hallo@example.nl.', ['email']), ['email']);
    assert.deepEqual(heldKinds('We will send it to your address.', ['address']), []);
  });
});

describe('composeOfflineAnswer', () => {
  test('quotes the sentence that answers, not the whole passage, and names its source', () => {
    const answer = ask('How much is a full service?', [PRICES, HOURS]);
    assert.equal(answer.text, 'A full service costs 129 euros and includes new cables.\n\nSource: Prices');
    assert.equal(answer.declined, false);
    assert.ok(answer.coverage >= ANSWER_THRESHOLD);
  });

  test('a passage read once answers every later question as when it was read first: what one answer adds to its sentences (forms, related words, asked kinds) stays with that answer', () => {
    // Each question over passages read for it alone (their titles differ by trailing spaces, which no word holds), then
    // all of them again, in the other order, over passages that every answer before has read.
    const material = (spaces = 0) => WORKSHOP_CORPUS.map((p, i) => ({ sourceName: i % 2 ? 'FAQ' : 'Site', title: `${p.title}${' '.repeat(spaces)}`, text: p.text, score: 0.9 - i * 0.02 }));
    const questions = [...WORKSHOP_QUESTIONS.map((q) => q.question), ...UNCOVERED_QUESTIONS, 'Who founded the shop?', 'Which mechanic repairs e-bikes?', 'How long does a repair take?'];
    const fresh = questions.map((question, i) => JSON.stringify(ask(question, material(i + 1))));
    const shared = material();
    for (const question of questions) ask(question, shared, { followsUp: 'How much does a service cost?' });
    assert.deepEqual(
      [...questions].reverse().map((question) => JSON.stringify(ask(question, shared))),
      [...fresh].reverse(),
    );
  });

  test('a passage kept by its id is read as the text and title it comes with: another text or title under the same id answers as its own', () => {
    const question = 'What time do you close on Fridays?';
    const withId = (given: { title: string; text: string }) => ({ ...HOURS, ...given, id: 'psg_hours' });
    const later = { title: 'Opening hours', text: HOURS.text.replace('18:00', '17:30') };
    const renamed = { title: 'Hours', text: HOURS.text };
    assert.match(ask(question, [withId(HOURS)]).text, /18:00/);
    for (const given of [later, renamed, HOURS]) assert.equal(JSON.stringify(ask(question, [withId(given)])), JSON.stringify(ask(question, [{ ...HOURS, ...given }])));
    assert.match(ask(question, [withId(later)]).text, /17:30/);
  });

  test('a term one answer drops from a kept sentence (a false friend across languages) is still held by the next answer', async () => {
    await detectLanguage('Loads the language detector, as the answering service does before the model answers.');
    const material = (id = '') => [
      { ...passage('Créer une facture', "Facturo ajoute les mentions obligatoires : date d'échéance et pénalités de retard."), ...(id ? { id: `${id}1` } : {}) },
      { ...passage('Sécurité', 'Vos données sont hébergées en France et sauvegardées chaque nuit à Strasbourg.', 0.5), ...(id ? { id: `${id}2` } : {}) },
    ];
    const dated = (passages: OfflineContext['passages']) => JSON.stringify(ask("Quelle est la date d'échéance d'une facture ?", passages, { language: 'fr' }));
    const fresh = dated(material());
    assert.match(fresh, /échéance/);
    const shared = material('psg_');
    assert.match(ask('Wo werden meine Daten gespeichert?', shared, { language: 'de' }).text, /hébergées/, '"Daten" dropped from the invoice sentence for this answer');
    assert.equal(dated(shared), fresh);
  });

  test('a question asking for a time is answered by the sentence with the time; the next one joins when it goes on about the question', () => {
    assert.equal(ask('What time do you close on Fridays?', [HOURS, PRICES]).text, `${HOURS.text}\n\nSource: Opening hours`);
    assert.equal(ask('What time do you open?', [HOURS]).text, 'The workshop is open Tuesday to Friday from 8:30 to 18:00.\n\nSource: Opening hours');
  });

  test('a passage that states the asked-for address or e-mail address answers it, whatever its shape', () => {
    const file = { sourceName: 'address.txt', title: 'address.txt', text: 'Delivery address: Canal Street 12.', score: 0.9 };
    assert.equal(ask('What is the delivery address?', [file]).text, 'Delivery address: Canal Street 12.\n\nSource: address.txt');
    const mail = { sourceName: 'Contact', title: 'Contact', text: 'Mail us at hallo@example.nl any day. We answer within a day.', score: 0.9 };
    assert.equal(ask('What is your e-mail address?', [mail]).text, 'Mail us at hallo@example.nl any day.\n\nSource: Contact');
  });

  test('a sentence that refers back ("It costs…") is quoted with the one before it', () => {
    assert.equal(ask('What does the repair course cost?', [COURSE]).text, `${COURSE.text}\n\nSource: Repair course`);
  });

  test('a sentence that ends in ":" is quoted with the one it introduces', () => {
    const list = passage('Payment', 'We take these ways of paying:\nDebit card, credit card and cash.');
    assert.equal(ask('Which ways of paying do you take?', [list]).text, 'We take these ways of paying: Debit card, credit card and cash.\n\nSource: Payment');
  });

  test('sentences from two passages are quoted in the passages’ order, with both sources; never more than three sentences', () => {
    const answer = ask('When is the course and what does a basic service cost?', [PRICES, COURSE]);
    assert.match(answer.text, /^A basic service costs 59 euros\..*On the first Wednesday/s);
    assert.match(answer.text, /\n\nSources: Prices, Repair course$/);
    const long = passage('Everything', 'Bikes one. Bikes two. Bikes three. Bikes four. Bikes five.');
    assert.ok(sentences(ask('bikes', [long]).text.split('\n\n')[0]).length <= 3);
  });

  test('declines, in the answer’s language, when there are no passages or they hold too little of the question', () => {
    for (const language of LANGUAGES) {
      assert.deepEqual(ask('Do you sell skateboards?', [], { language }), { text: PHRASES[language].decline, coverage: 0, declined: true, used: [] });
    }
    const weak = ask('Can I bring my dog into the shop?', [passage('Child seats', 'We fit child seats. Bring the seat or buy one in the shop.')]);
    assert.equal(weak.text, PHRASES.en.decline);
    assert.ok(weak.declined && weak.coverage < ANSWER_THRESHOLD);
  });

  test('an FAQ’s question and a heading are never quoted: the answer is the sentence under them, found by their words', () => {
    const faq = passage('FAQ', 'Do you treat children?\n\nWe treat patients from the age of 12, with a parent present.');
    const answer = ask('Can children be treated here?', [faq]);
    assert.equal(answer.declined, false);
    assert.match(answer.text, /^We treat patients from the age of 12/);
    assert.doesNotMatch(answer.text, /Do you treat children\?/);
    const hours = passage('Contact', 'Opening hours\n\nSaturday: 9:00 – 13:00\n\nSunday: closed');
    assert.match(ask('What are your opening hours on Saturday?', [hours]).text, /^Saturday: 9:00 – 13:00/);
  });

  test('a decline offers the next steps given, in the answer’s language; the other-language line opens a quote from other material', () => {
    const steps = { contact: '030 234 5678 · hallo@example.nl', ticket: true, lead: false, booking: 'https://cal.example/x' };
    const text = ask('Do you sell skateboards?', [], { language: 'nl', nextSteps: steps }).text;
    assert.ok(text.startsWith(PHRASES.nl.decline), text);
    assert.ok(text.includes(PHRASES.nl.reach.replace('{contact}', steps.contact)), text);
    assert.ok(text.includes(PHRASES.nl.ticket) && text.includes('https://cal.example/x'), text);
    const quoted = composeOfflineAnswer({ question: 'full service price', followsUp: null, language: 'nl', passages: [PRICES] });
    assert.ok(withLanguageLine(quoted, 'nl', 'en').text.startsWith('Mijn informatie hierover is in het Engels:\n\n'));
    assert.equal(withLanguageLine(quoted, 'nl', 'nl').text, quoted.text);
  });

  test('the source line is in the answer’s language', () => {
    const labels = { en: 'Source', nl: 'Bron', fr: 'Source', de: 'Quelle', es: 'Fuente' } as const;
    for (const language of LANGUAGES) assert.match(ask('full service price', [PRICES], { language }).text, new RegExp(`\\n\\n${labels[language]}: Prices$`));
    assert.match(ask('course and basic service', [PRICES, COURSE], { language: 'de' }).text, /\n\nQuellen: Prices, Repair course$/);
  });

  test('a greeting is answered with a greeting in the answer’s language, whatever the passages', () => {
    assert.equal(ask('Hello!', [HOURS]).text, 'Hello! What would you like to know?');
    assert.equal(ask('goedemorgen', [], { language: 'nl' }).text, 'Hallo! Waar kan ik je mee helpen?');
    assert.equal(ask('Hola', [], { language: 'es' }).declined, false);
    assert.equal(ask('Hello, when are you open?', [HOURS]).text.startsWith('The workshop'), true, 'a greeting with a question is a question');
  });

  test('a follow-up is answered with the help of the question it follows', () => {
    const answer = ask('and on Mondays?', [HOURS], { followsUp: 'Are you open on Fridays?' });
    assert.match(answer.text, /closed on Sundays and Mondays/);
  });

  test('never invents: an answer is a decline, a greeting or sentences of the passages with a source line', () => {
    const word = fc.constantFrom('bike', 'service', 'costs', 'open', 'Friday', '18:00', '59 euros', 'chain', 'the', 'we', 'how', 'much', 'when', 'dog', 'Öl', 'día');
    const text = fc.array(fc.array(word, { minLength: 1, maxLength: 8 }).map((ws) => `${ws.join(' ')}.`), { minLength: 1, maxLength: 4 }).map((ss) => ss.join(' '));
    const passages = fc.array(fc.record({ sourceName: fc.constantFrom('A', 'B'), title: fc.constantFrom('Prices', 'Hours', ''), text, score: fc.double({ min: 0, max: 1, noNaN: true }) }), { maxLength: 5 });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }).map((ws) => `${ws.join(' ')}?`), passages, fc.constantFrom(...LANGUAGES), (question, given, language) => {
        const { text: answer, declined } = composeOfflineAnswer({ question, followsUp: null, language, passages: given });
        if (declined) return answer === PHRASES[language].decline;
        const [quoted, sourceLine] = answer.split('\n\n');
        const known = given.flatMap((p) => sentences(p.text));
        return quotesOnly(quoted, known) && /^(Sources?|Bronn?e?n?|Quellen?|Fuentes?): /.test(sourceLine ?? '');
      }),
      { numRuns: 300 },
    );
  });
});

/** The text is known sentences one after another, each once at most, joined by spaces. */
function quotesOnly(text: string, known: string[]): boolean {
  if (text === '') return true;
  return known.some((s, i) => text.startsWith(s) && (text.length === s.length || text[s.length] === ' ') && quotesOnly(text.slice(s.length + 1), known.filter((_, j) => j !== i)));
}

describe('words said otherwise: synonyms, parts of speech, verbs by word order', () => {
  const TEAM = passage('Our team', 'Hannah Okafor founded the clinic in 2014. Priya Shah specialises in rehabilitation after surgery.');
  const PAYING = passage('Veelgestelde vragen', 'Welke betaalmethoden accepteren jullie?\n\nIn de winkel kun je pinnen of contant betalen.');

  test('"how late" and "until when" ask for a time of day; "who" (in Dutch "wie") for a name; "how many" is not answered by an article', () => {
    assert.deepEqual(askedFor('How late can I come in on a Friday?').kinds, ['clock']);
    assert.deepEqual(askedFor("Jusqu'à quelle heure êtes-vous ouverts ?").kinds, ['clock']);
    assert.deepEqual(askedFor('Who founded the clinic?').kinds, ['name']);
    assert.deepEqual(askedFor('Wie zijn de eigenaren?', 'nl').kinds, ['name']);
    assert.deepEqual(askedFor('Wie lange dauert es?', 'de').kinds, ['duration'], 'German "wie" is "how"');
    assert.deepEqual(heldKinds('Classes are led by a physiotherapist.', ['number']), []);
    assert.deepEqual(heldKinds('Classes have at most six people.', ['number']), ['number']);
  });

  test('two capitalised words are no name when one is a stop word or a common word of the material ("Gloucester Road")', () => {
    const common = (word: string) => ['road', 'physiotherapy'].includes(word);
    assert.deepEqual(heldKinds('Tom Reilly leads our classes.', ['name'], common), ['name']);
    assert.deepEqual(heldKinds('Visit Tom Reilly today.', ['name'], () => false), ['name'], 'a name after a capitalised first word');
    assert.deepEqual(heldKinds('We are on Gloucester Road.', ['name'], common), []);
    assert.deepEqual(heldKinds('Our Pilates classes.', ['name'], common), []);
    assert.deepEqual(heldKinds('Welkom bij De Bonenbaas.', ['name'], common), []);
    const HOME = passage('Home', 'Clearwater is an independent physiotherapy clinic on Gloucester Road.\n\nClearwater Physiotherapy has a car park.');
    assert.equal(ask('Who started the clinic?', [HOME]).declined, true, 'a street and the business are no person');
    assert.match(ask('Who started the clinic?', [HOME, passage('Our team', 'Hannah Okafor started the clinic in 2014.')]).text, /Hannah Okafor/);
  });

  test('a sentence holds a question’s verb by a verb of one doer with it, for half its weight ("started" by "founded": a founder is a beginner)', () => {
    const HOME = passage('Home', 'Clearwater is an independent physiotherapy clinic on Gloucester Road.');
    // Both names answer "who"; the verb tells them apart (with the name first that would be chosen on a tie).
    const TEAM_PAGE = passage('Our team', 'Tom Reilly leads our Pilates classes.\n\nHannah Okafor founded Clearwater in 2014.');
    const reply = ask('Who started the clinic?', [HOME, TEAM_PAGE]);
    assert.equal(reply.declined, false);
    assert.match(reply.text, /Hannah Okafor founded/);
    assert.doesNotMatch(reply.text, /Tom Reilly/);
  });

  test('an English sentence holds a question’s word by its WordNet synonym', () => {
    const reply = ask('Who can help me after an operation?', [TEAM]);
    assert.equal(reply.declined, false);
    assert.match(reply.text, /Priya Shah/);
  });

  test('a sentence holds a question’s word by a word one sense more specific or more general, for half its weight', () => {
    const FAQ = passage('FAQ', 'Do I need a referral from my GP?\n\nNo. You can book directly with us without a referral.');
    const FEES = passage('Physiotherapy fees', 'Home visits within 5 miles: 95 pounds per visit.\nMedico-legal reports for solicitors: 150 pounds per report.');
    assert.match(ask('Do I need my doctor to refer me?', [FAQ]).text, /without a referral/, '"GP" is a kind of doctor');
    assert.match(ask('How much do you charge for a report for my lawyer?', [FEES]).text, /150 pounds/, '"solicitor" is a kind of lawyer');
    assert.match(ask('Can a physio come to my house?', [FEES]).text, /95 pounds/, '"house" is a kind of home');
  });

  test('a sentence holds a question’s noun by a sister noun its definition names, for half its weight ("monitor" by "screen")', () => {
    const DESK = passage('Working from home', 'Set the top of your screen at eye level and keep your elbows at about 90 degrees.\nUse a separate keyboard.');
    const monitor = ask('Where should my monitor be?', [DESK]);
    assert.equal(monitor.declined, false);
    assert.match(monitor.text, /eye level/);
    assert.ok(monitor.coverage < ask('Where should my screen be?', [DESK]).coverage, 'less than the word itself');
    assert.equal(ask('Where should my lamp be?', [DESK]).declined, true);
  });

  test('"who" asks for a name that weighs as much as the question’s heaviest word', () => {
    const CLINIC = passage('Clinic', 'We treat back pain and help you recover after surgery.');
    const reply = ask('Who can help me recover after an operation?', [CLINIC, passage('Our team', 'Priya Shah specialises in rehabilitation after surgery.')]);
    assert.match(reply.text, /Priya Shah/);
  });

  test('"which" or "what" with a kind of person asks for a name, also by a longer form the material holds ("physio")', () => {
    const PILATES = passage('Pilates', 'Our Pilates classes are led by a physiotherapist and suit beginners. A block of six classes costs £80.');
    const TEAM = passage('Our team', 'Tom Reilly leads our Pilates classes.\n\nPriya Shah treats back pain.\n\nAll our physiotherapists are chartered physiotherapists.');
    assert.match(ask('Which physio teaches the Pilates classes?', [PILATES, TEAM]).text, /Tom Reilly/);
    assert.match(ask('Which teacher leads the Pilates classes?', [PILATES, TEAM]).text, /Tom Reilly/);
    assert.match(ask('Which Pilates classes suit beginners?', [PILATES, TEAM]).text, /^Our Pilates classes/, 'a class is no person');
  });

  test('the question’s topic must be held as its word, not only by a longer word of its stem ("paie" is not "paiements")', () => {
    const HOME = passage('Le logiciel de facturation', 'Devis, factures, relances et suivi des paiements au même endroit.\n\nFacturo est un logiciel de facturation en ligne.');
    const fr = (question: string) => ask(question, [HOME], { language: 'fr' });
    assert.equal(fr('Proposez-vous un logiciel de paie ?').declined, true);
    assert.match(fr('Proposez-vous le suivi des paiements ?').text, /suivi des paiements/);
    assert.match(fr('Faites-vous les factures ?').text, /Devis, factures/, 'an inflection is the word');
    const SUNDAYS = passage('Opening hours', 'We treat patients on Sundays.\n\nParking is free for patients.');
    assert.match(ask('Are treatments possible on Sundays?', [SUNDAYS]).text, /We treat patients/, 'the question’s word holds the material’s');
  });

  test('a heading inside a passage is what the lines under it are about', () => {
    const FACTS = passage('Contact details', 'Contact details\n\nOudegracht 214\n\nOpening hours shop\n\nSaturday: 09:00 – 17:00\n\nSunday: 11:00 – 16:00');
    const reply = ask('What time does the shop close on Saturday?', [FACTS]);
    assert.equal(reply.declined, false);
    assert.match(reply.text, /^Saturday: 09:00 – 17:00/);
  });

  test('two sources that answer alike are both quoted', () => {
    const SHOP = passage('Shop', 'House blend — Origin: Brazil; 1 kilo: € 29,00');
    const WHOLESALE = passage('Wholesale prices', 'House blend: 21,50 euro per kilo, excluding VAT.', 0.9);
    const reply = ask('How much is a kilo of the house blend?', [WHOLESALE, SHOP]);
    assert.match(reply.text, /29,00/);
    assert.match(reply.text, /21,50/);
    assert.match(reply.text, /Sources: Wholesale prices, Shop/);
  });

  test('across languages a question finds the days of the week, names, numbers and words spelt nearly alike; a name the material lacks is declined', async () => {
    await detectLanguage('Loads the language detector, as the answering service does before the model answers.');
    const HOURS_EN = passage('Opening hours', 'Monday to Friday: 8:00am – 6:00pm\n\nSaturday: 9:00am – 1:00pm\n\nWe are closed on Sundays and bank holidays.');
    assert.deepEqual(weekdaysNamed('Samstags, Saturdays, sábados, zaterdag'), [5]);
    assert.equal(withDaysNamed('Haben Sie am Samstag geöffnet?', 'de', 'en'), 'Haben Sie am Samstag geöffnet?\nSaturday', 'searched also by the day in the material’s language');
    const saturday = ask('Haben Sie am Samstag geöffnet?', [HOURS_EN], { language: 'de' });
    assert.equal(saturday.declined, false);
    assert.match(saturday.text, /^Saturday: 9:00am – 1:00pm/);
    const API = passage('API', "L'API REST est disponible dans les formules Équipe et Entreprise.\n\nRequêtes par minute: 60\n\nTaille d'une requête: 1 Mo");
    assert.match(ask('Hoeveel API-verzoeken per minuut zijn toegestaan?', [API], { language: 'nl' }).text, /Requêtes par minute: 60/);
    const INTEGRATIONS = passage('Intégrations', 'Stripe : vos clients paient leur facture par carte bancaire en ligne. Pennylane : export de vos factures vers votre comptabilité.');
    assert.equal(ask('Do you integrate with QuickBooks?', [INTEGRATIONS]).declined, true);
    assert.equal(ask('How much does it cost?', [passage('Tarifs', 'La formule Solo coûte 9 € HT par mois.')]).declined, true, 'an asked kind alone is no answer');
  });

  test('across languages a question word is held by its translation (FreeDict), for less than the same word', async () => {
    await detectLanguage('Loads the language detector, as the answering service does before the model answers.');
    const SHIPPING_NL = passage('Verzending', 'Binnen Nederland is verzending gratis vanaf 40 euro. We verzenden ook naar België en Duitsland voor 7,95 euro per pakket.');
    const translated = ask('Do you ship to Germany?', [SHIPPING_NL]);
    assert.equal(translated.declined, false);
    assert.match(translated.text, /Duitsland voor 7,95 euro/);
    const same = ask('Verzenden jullie naar Duitsland?', [SHIPPING_NL], { language: 'nl' });
    assert.ok(translated.coverage < same.coverage, `${translated.coverage} < ${same.coverage}`);
    assert.equal(ask('Do you ship to Japan?', [SHIPPING_NL]).declined, true, 'a country the material does not name');
  });

  test('across languages into English a question word with one translation is held by that word’s synonyms too ("eerste": first, initial)', async () => {
    await detectLanguage('Loads the language detector, as the answering service does before the model answers.');
    const FEES = passage('Treatments and prices', 'Initial assessment — Length: 60 minutes; Price: £65\n\nFollow-up session — Length: 45 minutes; Price: £50');
    const reply = ask('Wat kost de eerste afspraak?', [FEES], { language: 'nl' });
    assert.equal(reply.declined, false);
    assert.match(reply.text, /Initial assessment — Length: 60 minutes; Price: £65/);
    assert.doesNotMatch(reply.text, /£50/);
  });

  test('sentences holding every word of the question but not the asked kind of fact take the sentence that holds it with a word of the question, although it adds little; not when a word is held by none', async () => {
    await detectLanguage('Loads the language detector, as the answering service does before the model answers.');
    const INSURANCE = passage('Insurance', 'We are recognised by Bupa, AXA Health, Aviva and Vitality.\n\nFor Bupa and AXA Health we bill the insurer directly; bring your authorisation number to your first appointment.');
    const CANCELLING = passage('Cancellation', 'Please give us at least 24 hours notice if you cannot make your appointment. Appointments cancelled with less notice are charged at half the fee.');
    const FEES = passage('Treatments and prices', 'Initial assessment — Length: 60 minutes; Price: £65\n\nFollow-up session — Length: 45 minutes; Price: £50\n\nSports massage — Length: 60 minutes; Price: £55');
    // "eerste" and "afspraak" are held by their translations (half their weight) in the insurance sentence, which has no price; the fee's row adds the price.
    const reply = ask('Wat kost de eerste afspraak?', [INSURANCE, CANCELLING, FEES], { language: 'nl' });
    assert.equal(reply.declined, false);
    assert.match(reply.text, /first appointment\. Initial assessment — Length: 60 minutes; Price: £65/);
    assert.equal(ask('How much does parking cost at the first appointment?', [INSURANCE, CANCELLING, FEES]).declined, true, 'no sentence holds "parking"');
    assert.equal(ask('Wat kost de eerste afspraak bij de tandarts?', [INSURANCE, CANCELLING, FEES], { language: 'nl' }).declined, true);
  });

  test('across languages a word spelt as one of the material’s that is none of its translations is a false friend', async () => {
    await detectLanguage('Loads the language detector, as the answering service does before the model answers.');
    const INVOICE = passage('Créer une facture', "Facturo ajoute les mentions obligatoires : date d'échéance et pénalités de retard.");
    const HOSTING = passage('Sécurité', 'Vos données sont hébergées en France et sauvegardées chaque nuit à Strasbourg.', 0.5);
    const reply = ask('Wo werden meine Daten gespeichert?', [INVOICE, HOSTING], { language: 'de' });
    assert.match(reply.text, /hébergées en France/, '"Daten" is "données", not "date"');
    assert.doesNotMatch(reply.text, /échéance/);
    const WORKSHOPS = passage('Workshops', 'Een workshop duurt drie uur en kost 45 euro per persoon.');
    assert.match(ask('How much is a workshop?', [WORKSHOPS]).text, /45 euro/, 'the same word written alike is no false friend');
  });

  test('a verb, adjective or adverb the material lacks weighs less than a noun it lacks', () => {
    const ACUPUNCTURE = passage('Treatments', 'Acupuncture is added to a session for 10 pounds.');
    assert.equal(ask('Do you offer acupuncture?', [ACUPUNCTURE]).declined, false, '"offer" is mostly a verb');
    assert.equal(ask('Do you have acupuncture for horses?', [ACUPUNCTURE]).declined, true, '"horses" is what is asked about');
  });

  test('an adjective is held by its satellite where each is its word’s first sense ("initial" for "first")', () => {
    const FEES = passage('Treatments and prices', 'Initial assessment — Length: 60 minutes; Price: £65\n\nFollow-up session — Length: 45 minutes; Price: £50');
    const reply = ask('How much is the first appointment?', [passage('Home', 'Every first appointment is a full hour.'), FEES]);
    assert.match(reply.text, /Initial assessment — Length: 60 minutes; Price: £65/);
  });

  test('a stated age is answered by what the material says of ages; an English text keeps another language’s stop word English uses ("son")', () => {
    assert.deepEqual(askedFor('Can my 14 year old son be treated?', 'en').kinds, ['age']);
    assert.deepEqual(askedFor('Mijn zoon is 14 jaar oud: mag hij meedoen?', 'nl').kinds, ['age']);
    assert.deepEqual(askedFor('Kan ik een abonnement van 2 jaar nemen?', 'nl').kinds, [], 'a length of time is no age');
    assert.deepEqual(heldKinds('We treat children from the age of 12.', ['age']), ['age']);
    assert.deepEqual(heldKinds('People over 65 receive 10 percent off.', ['age']), ['age']);
    assert.deepEqual(heldKinds('Orders over 40 euros ship free.', ['age']), [], 'an amount is no age');
    assert.deepEqual(heldKinds('Clearwater Physiotherapy, 14 Gloucester Road', ['age']), []);
    assert.ok(questionTerms('Can my 14 year old son be treated?', 'en').includes('son'), 'English uses "son" as a word');
    assert.ok(!questionTerms('Est-ce que son abonnement est actif ?', 'fr').includes('son'), 'French stops it');
    assert.deepEqual(questionTerms('Wanneer is de workshop latte art?', 'en'), questionTerms('Wanneer is de workshop latte art?', 'nl'), 'a Dutch question read as English still loses "wanneer" and "de"');
    const FAQ = passage('FAQ', 'Do you treat children?\n\nWe treat children from the age of 12, with a parent or guardian present.');
    const ADDRESS = passage('Contact details', 'Clearwater Physiotherapy, 14 Gloucester Road, Bristol BS7 8AE');
    const reply = ask('Can my 14 year old son be treated?', [ADDRESS, FAQ]);
    assert.match(reply.text, /from the age of 12/, '"son" is held by "children" (a son is a child: WordNet, through "male offspring")');
  });

  test('the other languages’ verbs are found by word order, and weigh less when the material lacks them', () => {
    assert.deepEqual([...questionVerbs('Kan ik contant afrekenen?', 'nl')], [stem('afrekenen', 'nl')]);
    assert.deepEqual([...questionVerbs('Kan ik mijn abonnement stopzetten wanneer ik wil?', 'nl')], [stem('stopzetten', 'nl')]);
    assert.deepEqual([...questionVerbs('Hebben jullie een vestiging in Amsterdam?', 'nl')], [], 'no verb closes the clause');
    assert.deepEqual([...questionVerbs('Puis-je demander un acompte ?', 'fr')], [stem('demander', 'fr')], 'the modal itself is a stop word');
    assert.ok(questionVerbs('Mon comptable peut-il accéder à mes factures ?', 'fr').has(stem('acceder', 'fr')));
    assert.ok(questionVerbs('Wo werden meine Daten gespeichert?', 'de').has(stem('gespeichert', 'de')));
    assert.ok(questionVerbs('¿Puedo pagar con tarjeta?', 'es').has(stem('pagar', 'es')));
    const reply = ask('Kan ik contant afrekenen?', [PAYING], { language: 'nl' });
    assert.equal(reply.declined, false);
    assert.match(reply.text, /contant betalen/);
  });
});

describe('the offline model as an AI SDK model', () => {
  const offline = { parley: { question: 'How much is a full service?', followsUp: null, language: 'en', passages: [PRICES] } };

  test('generate and stream give the same text, streamed sentence by sentence', async () => {
    const model = offlineLanguageModel('parley-offline');
    const generated = await generateText({ model, prompt: 'ignored', providerOptions: offline });
    const streamed = streamText({ model, prompt: 'ignored', providerOptions: offline });
    const deltas: string[] = [];
    for await (const delta of streamed.textStream) deltas.push(delta);
    assert.equal(deltas.join(''), generated.text);
    assert.ok(deltas.length >= 2, 'the answer and its source line arrive apart');
    assert.equal(generated.text, composeOfflineAnswer(offline.parley as OfflineContext).text);
  });

  test('without the service’s context it declines (no material), in English', async () => {
    const { text } = await generateText({ model: offlineLanguageModel('parley-offline'), prompt: 'What are your opening hours?' });
    assert.equal(text, PHRASES.en.decline);
  });
});
