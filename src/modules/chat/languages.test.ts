import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import type { Language } from '../agents/schemas.ts';
import { PHRASES } from './language.ts';
import { seedTexts } from './test-support.ts';

// No OPENAI_BASE_URL: the lexical index alone, and the offline model answers; every agent has the default settings.
const env = { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' };
/** The highest minSimilarity a use-case preset sets (src/modules/workspace/presets.ts). */
const STRICTEST_PRESET = 0.55;

interface Shop {
  /** One sentence of opening hours, and a plain question about it. */
  sentence: { text: string; question: string; fact: string };
  /** A few pages: each question must be answered from its own page, among the others. */
  pages: Array<{ title: string; content: string }>;
  questions: Array<{ question: string; page: number; fact: string }>;
  /** A question none of the pages covers. */
  uncovered: string;
}

const SHOPS: Record<Language, Shop> = {
  en: {
    sentence: { text: 'We are open on Sunday from 9:00 to 13:00.', question: 'When are you open on Sunday?', fact: '13:00' },
    pages: [
      { title: 'Opening hours', content: 'We are open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00. On Sunday the shop is closed.' },
      { title: 'Delivery', content: 'We deliver throughout the country. Delivery costs € 4.95; orders over € 50 are delivered free of charge.' },
      { title: 'Returns', content: 'You can return a product within 30 days of receipt. Send it back in its original packaging with the receipt.' },
      { title: 'Repairs', content: 'Our workshop repairs bicycles of every brand. A normal repair takes about three working days.' },
    ],
    questions: [
      { question: 'How much do you charge for delivery?', page: 1, fact: '4.95' },
      { question: 'How many days do I have to return a product?', page: 2, fact: '30 days' },
      { question: 'How long does a repair of my bicycle take?', page: 3, fact: 'three working days' },
      { question: 'Are you open on Saturday?', page: 0, fact: '10:00' },
    ],
    uncovered: 'Do you sell gift cards?',
  },
  nl: {
    sentence: { text: 'Wij zijn op zondag open van 09:00 tot 13:00.', question: 'Zijn jullie op zondag open?', fact: '13:00' },
    pages: [
      { title: 'Openingstijden', content: 'Wij zijn open van maandag tot en met vrijdag van 9:00 tot 18:00 en op zaterdag van 10:00 tot 16:00. Op zondag is de winkel gesloten.' },
      { title: 'Bezorging', content: 'Wij bezorgen in heel Nederland. Bezorging kost € 4,95; bestellingen boven € 50 bezorgen wij gratis.' },
      { title: 'Retourneren', content: 'Je kunt een product binnen 30 dagen na ontvangst retourneren. Stuur het terug in de originele verpakking met de bon.' },
      { title: 'Reparaties', content: 'Onze werkplaats repareert fietsen van elk merk. Een gewone reparatie duurt ongeveer drie werkdagen.' },
    ],
    questions: [
      { question: 'Wat kost de bezorging bij jullie?', page: 1, fact: '4,95' },
      { question: 'Hoeveel dagen heb ik om een product te retourneren?', page: 2, fact: '30 dagen' },
      { question: 'Hoe lang duurt de reparatie van mijn fiets?', page: 3, fact: 'drie werkdagen' },
      { question: 'Zijn jullie op zaterdag open?', page: 0, fact: '10:00' },
    ],
    uncovered: 'Verkopen jullie ook cadeaubonnen?',
  },
  fr: {
    sentence: { text: 'Nous sommes ouverts le dimanche de 9 h à 13 h.', question: 'Êtes-vous ouverts le dimanche ?', fact: '13 h' },
    pages: [
      { title: 'Horaires', content: 'Nous sommes ouverts du lundi au vendredi de 9 h à 18 h et le samedi de 10 h à 16 h. Le dimanche, le magasin est fermé.' },
      { title: 'Livraison', content: 'Nous livrons partout en France. La livraison coûte 4,95 € ; les commandes de plus de 50 € sont livrées gratuitement.' },
      { title: 'Retours', content: "Vous pouvez retourner un produit dans les 30 jours suivant la réception. Renvoyez-le dans son emballage d'origine avec le ticket de caisse." },
      { title: 'Réparations', content: 'Notre atelier répare les vélos de toutes les marques. Une réparation normale prend environ trois jours ouvrables.' },
    ],
    questions: [
      { question: 'Combien coûte la livraison chez vous ?', page: 1, fact: '4,95' },
      { question: 'Combien de jours ai-je pour retourner un produit ?', page: 2, fact: '30 jours' },
      { question: 'Combien de temps prend la réparation de mon vélo ?', page: 3, fact: 'trois jours ouvrables' },
      { question: 'Êtes-vous ouverts le samedi ?', page: 0, fact: '10 h' },
    ],
    uncovered: 'Vendez-vous des cartes cadeaux ?',
  },
  de: {
    sentence: { text: 'Wir haben am Sonntag von 9 bis 13 Uhr geöffnet.', question: 'Wann haben Sie am Sonntag geöffnet?', fact: '13 Uhr' },
    pages: [
      { title: 'Öffnungszeiten', content: 'Wir haben Montag bis Freitag von 9 bis 18 Uhr und am Samstag von 10 bis 16 Uhr geöffnet. Am Sonntag ist das Geschäft geschlossen.' },
      { title: 'Lieferung', content: 'Wir liefern in ganz Deutschland. Die Lieferung kostet 4,95 €; Bestellungen über 50 € liefern wir kostenlos.' },
      { title: 'Rücksendungen', content: 'Sie können ein Produkt innerhalb von 30 Tagen nach Erhalt zurücksenden. Schicken Sie es in der Originalverpackung mit dem Kassenbon zurück.' },
      { title: 'Reparaturen', content: 'Unsere Werkstatt repariert Fahrräder aller Marken. Eine normale Reparatur dauert etwa drei Werktage.' },
    ],
    questions: [
      { question: 'Was kostet bei Ihnen die Lieferung?', page: 1, fact: '4,95' },
      { question: 'Wie lange kann ich ein Produkt zurücksenden?', page: 2, fact: '30 Tagen' },
      { question: 'Wie lange dauert die Reparatur von meinem Fahrrad?', page: 3, fact: 'drei Werktage' },
      { question: 'Haben Sie am Samstag geöffnet?', page: 0, fact: '10 bis 16 Uhr' },
    ],
    uncovered: 'Verkaufen Sie auch Geschenkgutscheine?',
  },
  es: {
    sentence: { text: 'Abrimos el domingo de 9 a 13 horas.', question: '¿Abren el domingo?', fact: '13 horas' },
    pages: [
      { title: 'Horario', content: 'Abrimos de lunes a viernes de 9 a 18 horas y el sábado de 10 a 16 horas. El domingo la tienda está cerrada.' },
      { title: 'Envíos', content: 'Enviamos a toda España. El envío cuesta 4,95 €; los pedidos de más de 50 € se envían gratis.' },
      { title: 'Devoluciones', content: 'Puede devolver un producto en un plazo de 30 días desde la recepción. Envíelo en su embalaje original con el ticket de compra.' },
      { title: 'Reparaciones', content: 'Nuestro taller repara bicicletas de todas las marcas. Una reparación normal tarda unos tres días laborables.' },
    ],
    questions: [
      { question: '¿Cuánto cuesta el envío?', page: 1, fact: '4,95' },
      { question: '¿Cuántos días tengo para devolver un producto?', page: 2, fact: '30 días' },
      { question: '¿Cuánto tarda la reparación de mi bicicleta?', page: 3, fact: 'tres días laborables' },
      { question: '¿Abren el sábado?', page: 0, fact: '10 a 16 horas' },
    ],
    uncovered: '¿Venden tarjetas regalo?',
  },
};

interface Reply {
  answer: string;
  confidence: number;
  sources: Array<{ id: string }>;
}

describe('a plain question in each of the five languages finds what the material says (agent language the material’s, or en)', () => {
  let service: Service;
  // A workspace a material language: four agents each, within the plan's agents.
  const workspaces = new Map<Language, SeededWorkspace>();

  before(async () => {
    service = await startService({ env });
    for (const language of Object.keys(SHOPS) as Language[]) workspaces.set(language, await service.seedWorkspace({ plan: 'studio' }));
  });
  after(async () => service?.close());

  const newAgent = async (ws: SeededWorkspace, name: string, language: Language) => {
    const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name, useCase: 'general', language } });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    return reply.body.data.id as string;
  };
  const ask = async (ws: SeededWorkspace, agent: string, message: string): Promise<Reply> => {
    const reply = await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.data;
  };

  for (const [language, shop] of Object.entries(SHOPS) as Array<[Language, Shop]>) {
    for (const agentLanguage of new Set<Language>([language, 'en'])) {
      const setting = `${language} material, agent language ${agentLanguage}`;

      test(`${setting}: "${shop.sentence.question}" is answered from the one sentence that says it, also at the strictest preset's minSimilarity`, async () => {
        const ws = workspaces.get(language)!;
        const agent = await newAgent(ws, `Sentence ${agentLanguage}`, agentLanguage);
        const [source] = await seedTexts(service, ws.keys.manage, agent, [{ title: 'Hours', content: shop.sentence.text }]);
        for (const minSimilarity of [undefined, STRICTEST_PRESET]) {
          if (minSimilarity !== undefined) {
            const patched = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { retrieval: { minSimilarity } } });
            assert.equal(patched.status, 200, JSON.stringify(patched.body));
          }
          const reply = await ask(ws, agent, shop.sentence.question);
          assert.ok(!reply.answer.startsWith(PHRASES[language].decline), `declined at minSimilarity ${minSimilarity ?? 'default'}: ${reply.answer}`);
          assert.ok(reply.answer.includes(shop.sentence.fact), reply.answer);
          assert.deepEqual(reply.sources.map((s) => s.id), [source]);
        }
      });

      test(`${setting}: each question is answered from its own page among four, and a question none covers is declined`, async () => {
        const ws = workspaces.get(language)!;
        const agent = await newAgent(ws, `Shop ${agentLanguage}`, agentLanguage);
        const pages = await seedTexts(service, ws.keys.manage, agent, shop.pages);
        for (const { question, page, fact } of shop.questions) {
          const reply = await ask(ws, agent, question);
          assert.ok(!reply.answer.startsWith(PHRASES[language].decline), `${question} declined`);
          assert.ok(reply.answer.includes(fact), `${question} -> ${reply.answer}`);
          assert.ok(reply.sources.some((s) => s.id === pages[page]), `${question}: ${shop.pages[page].title} is not among the sources`);
        }
        const uncovered = await ask(ws, agent, shop.uncovered);
        assert.ok(uncovered.answer.startsWith(PHRASES[language].decline), `${shop.uncovered} -> ${uncovered.answer}`);
      });
    }
  }
});
