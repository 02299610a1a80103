import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chunkText } from '../chunk.ts';
import { turnedAwayReason } from './crawler.ts';
import { hasContactDetails, hasOpeningHours } from './contact-details.ts';
import { extractPage } from './extract.ts';

const layout = (main: string, footer = '', header = '<a href="/">Shop</a><nav><a href="/a">A</a></nav>') =>
  `<!doctype html><html lang="nl"><head><title>T</title></head><body><header>${header}</header><main>${main}</main><footer>${footer}</footer></body></html>`;
const read = (main: string, footer?: string, header?: string) => extractPage(layout(main, footer, header), 'https://shop.example/page');
const filler = '<p>Our shop has sold fresh coffee beans roasted in the city for more than twenty years, to homes, offices and cafés alike.</p>';

describe('reading a page into passages', () => {
  test('a table reads as one line per row, with its headers', () => {
    const { text } = read(`<h1>Prices</h1><table><thead><tr><th>Service</th><th>Price</th></tr></thead>
      <tbody><tr><td>Annual service, e-bike</td><td>€ 99.00</td></tr><tr><td>Annual service, cargo bike</td><td>€ 119.00</td></tr></tbody></table>${filler}`);
    assert.match(text, /^Annual service, e-bike: € 99\.00$/m);
    assert.match(text, /^Annual service, cargo bike: € 119\.00$/m);
    assert.doesNotMatch(text, /Service: |^Service|^Price$/m, "the header row is not a row of its own");
  });

  test('a table of more columns names each value by its header', () => {
    const { text } = read(`<table><tr><th>Treatment</th><th>Length</th><th>Price</th></tr><tr><td>Sports massage</td><td>60 minutes</td><td>£55</td></tr></table>${filler}`);
    assert.match(text, /^Sports massage — Length: 60 minutes; Price: £55$/m);
  });

  test('a table whose rows start with a header cell (opening hours) reads "day: hours", never glued', () => {
    const { text } = read(`<table><caption>Opening hours</caption><tr><th>Saturday</th><td>09:00 – 17:00</td></tr><tr><th>Sunday</th><td>closed</td></tr></table>${filler}`);
    assert.match(text, /^Opening hours$/m);
    assert.match(text, /^Saturday: 09:00 – 17:00$/m);
    assert.match(text, /^Sunday: closed$/m);
    assert.doesNotMatch(text, /Saturday09/);
  });

  test('no words are glued across block boundaries', () => {
    const { text } = read(`<div><span>Opening</span><div>hours</div></div><ul><li>Tea</li><li>Coffee</li></ul><dl><dt>Saturday</dt><dd>10:00</dd></dl>${filler}`);
    assert.doesNotMatch(text, /Openinghours|TeaCoffee|Saturday10/);
  });

  test('a definition list keeps each term with its description', () => {
    const { text } = read(`<dl><dt>Can I pay cash?</dt><dd>Yes, in the shop.</dd><dt>Friday</dt><dd>7:30am – 5:00pm</dd></dl>${filler}`);
    assert.match(text, /^Can I pay cash\? Yes, in the shop\.$/m);
    assert.match(text, /^Friday: 7:30am – 5:00pm$/m);
  });

  test('an FAQ in details/summary keeps each question with its answer in one passage, under the page heading', () => {
    const { text } = read(`<h1>FAQ</h1>${filler}<details><summary>Is there parking?</summary><p>A free car park is behind the clinic.</p></details>
      <details><summary>Do you treat children?</summary><p>From the age of 12.</p></details>`);
    const passages = chunkText(text);
    const parking = passages.find((p) => p.text.includes('free car park'));
    assert.ok(parking, text);
    assert.match(parking.heading, /FAQ › Is there parking\?$/);
    assert.ok(!parking.text.includes('age of 12'), 'the next question is its own passage');
    const children = passages.find((p) => p.text.includes('age of 12'));
    assert.match(children!.heading, /FAQ › Do you treat children\?$/);
  });

  test('a question heading carries over to the answer below it', () => {
    const { text } = read(`<h1>Questions</h1>${filler}<h3>Do I need a referral?</h3><p>No, you can book directly.</p>`);
    const answer = chunkText(text).find((p) => p.text.includes('book directly'));
    assert.match(answer!.heading, /Questions › Do I need a referral\?$/);
  });

  test('the header and footer are left out of the main text, their contact facts kept apart', () => {
    const page = read(
      filler,
      `<address>De Bonenbaas<br>Oudegracht 214<br>3511 NS Utrecht</address><p>Telefoon: <a href="tel:+31302345678">030 234 5678</a></p><ul><li><a href="/privacy">Privacy</a></li></ul>`,
    );
    assert.doesNotMatch(page.text, /Oudegracht|030 234/);
    assert.match(page.siteFacts ?? '', /^De Bonenbaas, Oudegracht 214, 3511 NS Utrecht$/m);
    assert.match(page.siteFacts ?? '', /Telefoon: 030 234 5678/);
    assert.doesNotMatch(page.siteFacts ?? '', /Privacy|Shop/, 'menus and plain links are no facts');
    assert.equal(page.language, 'nl');
  });

  test('a footer without contact details or hours gives no site facts', () => {
    assert.equal(read(filler, '<p>Made with care. <a href="/terms">Terms</a></p>').siteFacts, null);
  });

  test('a short footer-only page is read as its main content, not as its footer', () => {
    const page = read('<h1>Contact</h1><p>Call or mail us, we answer within a day.</p>', '<p>Phone 0117 946 0321</p><p>Made by the team, roasted by hand, with care for every bean we sell to you.</p>');
    assert.match(page.text, /we answer within a day/);
    assert.doesNotMatch(page.text, /Made by the team/);
  });
});

describe('contact details and the too-little-content rule', () => {
  test('e-mail addresses, phone numbers and postal addresses count as contact details', () => {
    for (const text of ['mail hallo@bonenbaas.example', 'Phone 0117 946 0321', 'Bel +31 30 234 5678', 'Call (555) 123-4567', '3511 NS Utrecht', 'Bristol BS7 8AE', '18 rue de la Roquette, 75011 Paris', 'San Francisco, CA 94103']) {
      assert.ok(hasContactDetails(text), text);
    }
  });

  test('years, prices and registration numbers are no contact details', () => {
    for (const text of ['© 2026 De Bonenbaas', 'KvK 61234567', 'SIREN 912 345 678', 'Costs € 99.00 a year', 'Since 1998 in Utrecht']) {
      assert.ok(!hasContactDetails(text), text);
    }
  });

  test('times of day count as opening hours', () => {
    assert.ok(hasOpeningHours('Zaterdag: 09:00 – 17:00'));
    assert.ok(hasOpeningHours('Friday 7:30am'));
    assert.ok(hasOpeningHours('de 9 h à 18 h'));
    assert.ok(!hasOpeningHours('Founded in 1998'));
  });

  test('a short page is kept when it carries contact details, turned away when it does not', () => {
    const short = 'Contact: questions? Write to us and we answer within a day.';
    assert.equal(turnedAwayReason({ isLoginForm: false, text: 'Coming soon.', siteFacts: 'Phone 0117 946 0321' }), 'too_little_content');
    assert.equal(turnedAwayReason({ isLoginForm: false, text: `${short} Phone 0117 946 0321.`, siteFacts: null }), null);
    assert.equal(turnedAwayReason({ isLoginForm: false, text: `${short} Mail us.`, siteFacts: 'Phone 0117 946 0321' }), null);
    assert.equal(turnedAwayReason({ isLoginForm: false, text: `${short} Mail us.`, siteFacts: null }), 'too_little_content');
    assert.equal(turnedAwayReason({ isLoginForm: true, text: `${short} 0117 946 0321`, siteFacts: null }), 'login_page');
  });
});
