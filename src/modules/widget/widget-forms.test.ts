/**
 * The widget in a real browser (Chromium through playwright-core, test-support.ts): the greeting and the nudge, the
 * lead form, tickets, attachments. The chat itself, loading, layout and safety: widget.test.ts.
 * It runs on one store (test/run.ts ONE_STORE: the API rules behind its checks are proven on both by their own files).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { WEAK_CONFIDENCE } from '../../widget/shared.ts';
import { FORM_TEXTS } from '../leads/texts.ts';
import type { SeededWorkspace, Service } from '../../../test/support/harness.ts';
import { ask, DESKTOP, launcher, PHONE, SCREENSHOTS, startWidgetFixture, waitFor, type WidgetFixture } from './test-support.ts';

describe('the widget in a real browser: the greeting, the nudge, the lead form, tickets, attachments', () => {
  let fixture: WidgetFixture;
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;
  before(async () => {
    fixture = await startWidgetFixture();
    ({ service, ws, agent } = fixture);
  });
  after(() => fixture?.close());
  const patchAgent: WidgetFixture['patchAgent'] = (body) => fixture.patchAgent(body);
  const visit: WidgetFixture['visit'] = (path, options) => fixture.visit(path, options);
  const conversationOf: WidgetFixture['conversationOf'] = (page) => fixture.conversationOf(page);
  const conversations: WidgetFixture['conversations'] = () => fixture.conversations();

  test('the greeting bubble opens a chat recorded as openedBy greeting; the nudge opens one by itself, recorded as nudge', async () => {
    await patchAgent({ proactive: { greeting: { enabled: true, text: 'Need a repair?', delaySeconds: 0 } } });
    const page = await visit();
    await page.locator('[data-parley] .bubble').getByText('Need a repair?').click();
    await ask(page, 'When are you open on Saturday?');
    const byGreeting = (await conversations())[0]!;
    assert.equal(byGreeting.openedBy, 'greeting');

    await patchAgent({ proactive: { greeting: { enabled: false }, nudge: { enabled: true, text: 'Can I help you find a bike?', afterSeconds: 0 } } });
    const nudged = await visit();
    await nudged.locator('[data-parley] [role=dialog]').getByText('Can I help you find a bike?').waitFor();
    await ask(nudged, 'When are you open on Saturday?');
    assert.equal((await conversations())[0]!.openedBy, 'nudge');
    await patchAgent({ proactive: { nudge: { enabled: false } } });
  });

  test('proactive on the page clock: the greeting and the nudge wait their delays, show only on the paths set, not on a phone unless mobile, once per visitor', async () => {
    await patchAgent({ proactive: { greeting: { enabled: true, text: 'Need a repair?', delaySeconds: 30 }, nudge: { enabled: false }, pages: 'only', paths: ['/bikes/*'], mobile: false } });
    const bubble = (page: Page) => page.locator('[data-parley] .bubble');
    const dialog = (page: Page) => page.locator('[data-parley] [role=dialog]');
    /** The module is mounted and its timers set: the loader fetches it when the page is idle. */
    const mounted = async (page: Page) => {
      await launcher(page).waitFor();
      await page.clock.runFor(5_000);
      await dialog(page).waitFor({ state: 'attached' });
    };
    const page = await visit('/bikes/city', { clock: true });
    await mounted(page);
    await page.clock.runFor(29_000);
    assert.equal(await bubble(page).count(), 0, 'no greeting before its 30 s');
    await page.clock.runFor(2_000);
    await bubble(page).getByText('Need a repair?').waitFor();
    await page.reload();
    await mounted(page);
    await page.clock.runFor(60_000);
    assert.equal(await bubble(page).count(), 0, 'once per visitor: not again after a reload');

    const elsewhere = await visit('/contact', { clock: true });
    await mounted(elsewhere);
    await elsewhere.clock.runFor(60_000);
    assert.equal(await bubble(elsewhere).count(), 0, 'not on a path outside paths');

    const phone = await visit('/bikes/city', { clock: true, viewport: PHONE });
    await mounted(phone);
    await phone.clock.runFor(60_000);
    assert.equal(await bubble(phone).count(), 0, 'mobile false: not on a phone');
    await patchAgent({ proactive: { mobile: true } });
    const phoneAllowed = await visit('/bikes/city', { clock: true, viewport: PHONE });
    await mounted(phoneAllowed);
    await phoneAllowed.clock.runFor(31_000);
    await bubble(phoneAllowed).getByText('Need a repair?').waitFor();

    await patchAgent({ proactive: { greeting: { enabled: false }, nudge: { enabled: true, text: 'Looking for a city bike?', afterSeconds: 45 }, pages: 'except', paths: ['/contact'] } });
    const nudged = await visit('/bikes/city', { clock: true });
    await mounted(nudged);
    await nudged.clock.runFor(44_000);
    assert.equal(await dialog(nudged).isHidden(), true, 'no nudge before its 45 s');
    await nudged.clock.runFor(2_000);
    await dialog(nudged).getByText('Looking for a city bike?').waitFor();
    await nudged.reload();
    await mounted(nudged);
    await nudged.clock.runFor(60_000);
    assert.equal(await dialog(nudged).isHidden(), true, 'once per visitor: no nudge again after a reload');
    const excepted = await visit('/contact', { clock: true });
    await mounted(excepted);
    await excepted.clock.runFor(60_000);
    assert.equal(await dialog(excepted).isHidden(), true, 'pages except: not on the path excepted');
    await patchAgent({ proactive: { nudge: { enabled: false }, pages: 'all', paths: [], mobile: false } });
  });

  test('the lead form before the first question, after N questions and behind its button, as set; a skipped form is recorded as declined', async () => {
    await patchAgent({
      leadCapture: {
        enabled: true, timing: 'before_chat', skippable: true, privacyUrl: 'https://shop.example.com/privacy', fields: [{ name: 'email', required: true }, { name: 'name' }],
        intro: 'Tell us who you are.', marketing: { enabled: true, label: 'Bike news, please' }, thanks: 'Thanks, we will write soon.', button: 'Keep me posted',
      },
    });
    const page = await visit();
    await launcher(page).click();
    const form = page.locator('[data-parley] form.lead');
    await form.getByText('Tell us who you are.').waitFor();
    await form.getByText('Bike news, please').waitFor();
    assert.equal(await form.locator('a[href="https://shop.example.com/privacy"]').count(), 1);
    assert.equal(await page.locator('[data-parley] form.compose').isHidden(), true);
    if (SCREENSHOTS) await page.screenshot({ path: 'docs/images/widget-lead-form.png' });
    const leadsNow = async () => (await service.api('GET', `/agents/${agent}/leads`, { key: ws.keys.read })).body.data as Array<{ moment: string; email: string; name: string | null; marketing: boolean; shown: { intro: string; privacyUrl: string | null; marketing: string | null } }>;
    const before = (await leadsNow()).length;
    // The e-mail is required: the form is not sent without it.
    await form.getByRole('button', { name: 'Keep me posted' }).click();
    assert.equal(await form.getByLabel('E-mail').evaluate((box: HTMLInputElement) => box.validity.valueMissing), true);
    assert.equal((await leadsNow()).length, before);
    await form.getByLabel('E-mail').fill('ana@bikes.example');
    await form.getByLabel('Name').fill('Ana');
    await form.getByLabel('Bike news, please').check();
    await form.getByRole('button', { name: 'Keep me posted' }).click();
    await page.getByText('Thanks, we will write soon.').waitFor();
    let leads = await leadsNow();
    assert.equal(leads[0]!.moment, 'before');
    assert.equal(leads[0]!.email, 'ana@bikes.example');
    assert.equal(leads[0]!.name, 'Ana');
    assert.equal(leads[0]!.marketing, true);
    assert.equal(leads[0]!.shown.intro, 'Tell us who you are.');
    assert.equal(leads[0]!.shown.privacyUrl, 'https://shop.example.com/privacy');
    assert.equal(leads[0]!.shown.marketing, 'Bike news, please');

    const declinedSoFar = async () => (await service.api('GET', `/agents/${agent}/analytics`, { key: ws.keys.read })).body.data.widget.leadFormsDeclined as number;
    const declinedBefore = await declinedSoFar();
    const skipper = await visit();
    await launcher(skipper).click();
    await skipper.getByRole('button', { name: 'Skip' }).click();
    await skipper.locator('[data-parley] form.compose').waitFor();
    await waitFor(async () => (await declinedSoFar()) === declinedBefore + 1);
    await skipper.reload();
    await launcher(skipper).click();
    await skipper.locator('[data-parley] form.compose').waitFor();
    assert.equal(await skipper.locator('[data-parley] form.lead').count(), 0, 'a skipped form does not come back');

    await patchAgent({ leadCapture: { timing: 'during_chat', afterQuestions: 1, afterWeakAnswer: false, skippable: false } });
    const later = await visit();
    await launcher(later).click();
    await ask(later, 'When are you open on Saturday?');
    await later.locator('[data-parley] form.lead').waitFor();
    assert.equal(await later.locator('[data-parley] form.lead').getByRole('button', { name: 'Skip' }).count(), 0, 'not skippable: no Skip button');
    await later.locator('[data-parley] form.lead').getByLabel('E-mail').fill('bo@bikes.example');
    await later.locator('[data-parley] form.lead').getByRole('button', { name: 'Keep me posted' }).click();
    await later.getByText('Thanks, we will write soon.').waitFor();

    const button = await visit();
    await launcher(button).click();
    await button.getByRole('button', { name: 'Leave your details' }).click();
    await button.locator('[data-parley] form.lead').getByLabel('E-mail').fill('cy@bikes.example');
    await button.locator('[data-parley] form.lead').getByRole('button', { name: 'Keep me posted' }).click();
    await button.getByText('Thanks, we will write soon.').waitFor();
    leads = (await service.api('GET', `/agents/${agent}/leads`, { key: ws.keys.read })).body.data;
    assert.deepEqual(leads.slice(0, 2).map((l) => l.moment).sort(), ['button', 'questions']);
    await patchAgent({ leadCapture: { enabled: false, button: '' } });
  });

  test('tickets: a weak answer offers the ticket form with the question; a signed-in visitor does not type an address; the visitor sees the ticket number', async () => {
    await patchAgent({ tickets: { enabled: true, privacyUrl: 'https://shop.example.com/privacy', answerTime: 'We answer within one working day.' } });
    const page = await visit();
    await launcher(page).click();
    await ask(page, 'Do you rent out submarines for weddings?');
    const form = page.locator('[data-parley] form.lead');
    assert.equal(await form.getByLabel('Your question').inputValue(), 'Do you rent out submarines for weddings?');
    await form.getByText('We answer within one working day.').waitFor();
    assert.equal(await form.locator('a[href="https://shop.example.com/privacy"]').count(), 1);
    await form.getByLabel('E-mail').fill('dee@bikes.example');
    await form.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Thank you! Your ticket number is #1.').waitFor();

    const secret = (await service.api('GET', `/agents/${agent}/identity-secret`, { key: ws.keys.manage })).body.data.secret as string;
    const hash = createHmac('sha256', secret).update('eve@bikes.example').digest('hex');
    const signedIn = await visit();
    await launcher(signedIn).waitFor();
    await signedIn.evaluate((who) => (window as any).Parley.identify(who), { email: 'eve@bikes.example', hash });
    await launcher(signedIn).click();
    await signedIn.getByRole('button', { name: 'Talk to a person' }).click();
    const signedForm = signedIn.locator('[data-parley] form.lead');
    assert.equal(await signedForm.getByLabel('E-mail').count(), 0);
    await signedForm.getByLabel('Your question').fill('Where is my order?');
    await signedForm.getByRole('button', { name: 'Send' }).click();
    await signedIn.getByText('Thank you! Your ticket number is #2.').waitFor();
    const tickets = (await service.api('GET', `/agents/${agent}/tickets`, { key: ws.keys.read })).body.data as Array<{ email: string; signedIn: boolean }>;
    const eve = tickets.find((ticket) => ticket.email === 'eve@bikes.example');
    assert.equal(eve?.signedIn, true);
    await patchAgent({ tickets: { enabled: false } });
  });

  test(`afterWeakAnswer: an answer below confidence ${WEAK_CONFIDENCE} or without a source brings the lead form, and the lead records moment weak_answer`, async () => {
    await patchAgent({ leadCapture: { enabled: true, timing: 'during_chat', afterQuestions: 20, afterWeakAnswer: true, skippable: true, privacyUrl: 'https://shop.example.com/privacy', fields: [{ name: 'email', required: true }] } });
    const page = await visit();
    await launcher(page).click();
    await ask(page, 'When are you open on Saturday?');
    assert.equal(await page.locator('[data-parley] form.lead').count(), 0, 'a strong answer brings no form');
    await ask(page, 'Do you rent out submarines for weddings?');
    const form = page.locator('[data-parley] form.lead');
    await form.getByLabel('E-mail').fill('fay@bikes.example');
    await form.getByRole('button', { name: 'Send' }).click();
    await form.waitFor({ state: 'detached' });
    const latest = { id: await conversationOf(page) };
    const answers = ((await service.api('GET', `/agents/${agent}/conversations/${latest!.id}`, { key: ws.keys.read })).body.data.messages as Array<{ role: string; confidence: number; sources: unknown[] }>).filter((m) => m.role === 'assistant');
    assert.ok(answers[0]!.confidence >= WEAK_CONFIDENCE && answers[0]!.sources.length > 0, `strong: ${JSON.stringify(answers[0])}`);
    assert.ok(answers[1]!.confidence < WEAK_CONFIDENCE || answers[1]!.sources.length === 0, `weak: ${JSON.stringify(answers[1])}`);
    const leads = (await service.api('GET', `/agents/${agent}/leads`, { key: ws.keys.read })).body.data as Array<{ moment: string; email: string; conversationId: string }>;
    const lead = leads.find((l) => l.email === 'fay@bikes.example');
    assert.equal(lead?.moment, 'weak_answer');
    assert.equal(lead?.conversationId, latest!.id);
    await patchAgent({ leadCapture: { enabled: false } });
  });

  test('after a weak answer, on a desktop and on a phone: the answer and the form it brings are in view together with one Send button, the thanks and the ticket number come into view, and the ticket form reuses the lead form\'s e-mail and name', async (t) => {
    // Put back even when an assertion fails, so the tests after this one do not meet its lead form.
    t.after(() => patchAgent({ leadCapture: { enabled: false }, tickets: { enabled: false } }));
    await patchAgent({
      leadCapture: { enabled: true, timing: 'during_chat', afterQuestions: 20, afterWeakAnswer: true, skippable: true, privacyUrl: 'https://shop.example.com/privacy', fields: [{ name: 'email', required: true }, { name: 'name' }], intro: '', thanks: 'Thanks, we will write soon.', button: '' },
      tickets: { enabled: true, privacyUrl: 'https://shop.example.com/privacy' },
    });
    for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const page = await visit('/', { viewport });
      await launcher(page).click();
      // Enough conversation above that the log scrolls.
      await ask(page, 'When are you open on Saturday?');
      await ask(page, 'What does mending a flat tyre cost?');
      await ask(page, 'Do you rent out submarines for weddings?');
      const answer = page.locator('[data-parley] .msg.agent').filter({ has: page.locator('.rate') }).last();
      const leadForm = page.locator('[data-parley] form.lead[aria-label="Leave your details"]');
      await leadForm.waitFor();
      await assertInView(answer, `${size}: the weak answer, with the lead form`);
      await assertInView(leadForm.getByText(FORM_TEXTS.en.intro), `${size}: the lead form's reason`);
      await assertInView(leadForm, `${size}: the lead form`);
      await assertOnePrimary(page, `${size}: lead form`);
      await leadForm.getByLabel('E-mail').fill('hal@bikes.example');
      await leadForm.getByLabel('Name').fill('Hal');
      await leadForm.getByRole('button', { name: 'Send' }).click();
      await leadForm.waitFor({ state: 'detached' });
      await assertInView(page.locator('[data-parley] .msg.agent').getByText('Thanks, we will write soon.'), `${size}: the thanks`);

      await ask(page, 'Do you rent out submarines for weddings?');
      const ticketForm = page.locator('[data-parley] form.lead[aria-label="Talk to a person"]');
      await ticketForm.waitFor();
      await assertInView(answer, `${size}: the weak answer, with the ticket form`);
      await assertInView(ticketForm, `${size}: the ticket form`);
      await assertOnePrimary(page, `${size}: ticket form`);
      if (SCREENSHOTS && size === 'phone') await page.screenshot({ path: 'docs/images/widget-ticket-form.png' });
      assert.equal(await ticketForm.getByLabel('E-mail').inputValue(), 'hal@bikes.example', `${size}: the lead's e-mail again`);
      assert.equal(await ticketForm.getByLabel('Name').inputValue(), 'Hal');
      await ticketForm.getByRole('button', { name: 'Send' }).click();
      await ticketForm.waitFor({ state: 'detached' });
      await assertInView(page.locator('[data-parley] .msg.agent').getByText(/Your ticket number is #\d+\./), `${size}: the ticket number`);
      assert.equal(await page.locator('[data-parley] form.compose').isVisible(), true, `${size}: back to the chat`);
    }
    const tickets = (await service.api('GET', `/agents/${agent}/tickets`, { key: ws.keys.read })).body.data as Array<{ email: string }>;
    assert.equal(tickets.filter((ticket) => ticket.email === 'hal@bikes.example').length, 2);
  });

  test('asking for a person in words, in each of the five languages, brings the ticket form (with the last question) instead of an answer', async () => {
    await patchAgent({ tickets: { enabled: true, privacyUrl: 'https://shop.example.com/privacy' } });
    const page = await visit();
    await launcher(page).click();
    await ask(page, 'When are you open on Saturday?');
    const box = page.locator('[data-parley] textarea');
    const form = page.locator('[data-parley] form.lead[aria-label="Talk to a person"]');
    for (const words of ['I want to talk to a person', 'Ik wil een mens spreken', 'Je voudrais parler à une personne, s’il vous plaît', 'Ich möchte mit einem Menschen sprechen', 'Quiero hablar con una persona']) {
      await box.fill(words);
      await box.press('Enter');
      await form.waitFor();
      assert.equal(await form.getByLabel('Your question').inputValue(), 'When are you open on Saturday?', words);
      if (words.startsWith('Quiero')) break;
      await form.getByRole('button', { name: 'Back to the chat' }).click();
      await form.waitFor({ state: 'detached' });
    }
    await form.getByLabel('E-mail').fill('gus@bikes.example');
    await form.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/Your ticket number is #\d+\./).waitFor();
    const latest = { id: await conversationOf(page) };
    const messages = (await service.api('GET', `/agents/${agent}/conversations/${latest!.id}`, { key: ws.keys.read })).body.data.messages as unknown[];
    assert.equal(messages.length, 2, 'the requests for a person went to the ticket form, not to the agent');
    const tickets = (await service.api('GET', `/agents/${agent}/tickets`, { key: ws.keys.read })).body.data as Array<{ email: string; conversationId: string | null; question: string }>;
    const ticket = tickets.find((t) => t.email === 'gus@bikes.example');
    assert.equal(ticket?.conversationId, latest!.id);
    assert.equal(ticket?.question, 'When are you open on Saturday?');

    await patchAgent({ tickets: { enabled: false } });
    const untouched = await visit();
    await launcher(untouched).click();
    await ask(untouched, 'I want to talk to a person');
    assert.equal(await untouched.locator('[data-parley] form.lead').count(), 0, 'without tickets the agent answers');
  });

  test('attachments: the file button sends a file that goes with the next question', async () => {
    const without = await visit();
    await launcher(without).click();
    await without.locator('[data-parley] form.compose').waitFor();
    assert.equal(await without.locator('[data-parley] input[type=file], [data-parley] .attach').count(), 0, 'no file button while attachmentsEnabled is off');
    await patchAgent({ attachmentsEnabled: true });
    const page = await visit();
    await launcher(page).click();
    await page.locator('[data-parley] input[type=file]').setInputFiles({ name: 'order.txt', mimeType: 'text/plain', buffer: Buffer.from('Order 4711: a blue bike frame, its repair is booked for Tuesday.\n') });
    await page.locator('[data-parley] .file').getByText('order.txt').waitFor();
    await ask(page, 'When is the repair of my order booked?');
    assert.equal(await page.locator('[data-parley] .file').count(), 0);
    const latest = { id: await conversationOf(page) };
    const messages = (await service.api('GET', `/agents/${agent}/conversations/${latest!.id}`, { key: ws.keys.read })).body.data.messages as Array<{ role: string; attachments: Array<{ fileName: string }> }>;
    assert.deepEqual(messages[0]!.attachments.map((a) => a.fileName), ['order.txt']);
    await patchAgent({ attachmentsEnabled: false });
  });
});

/** The element wholly inside the visible part of the area that scrolls it, and of the window. */
async function assertInView(item: Locator, what: string): Promise<void> {
  const seen = await item.evaluate((node) => {
    const box = node.getBoundingClientRect();
    const area = { top: 0, bottom: innerHeight };
    for (let up = node.parentElement; up; up = up.parentElement) {
      if (!/auto|scroll/.test(getComputedStyle(up).overflowY)) continue;
      const rect = up.getBoundingClientRect();
      area.top = Math.max(area.top, rect.top);
      area.bottom = Math.min(area.bottom, rect.bottom);
    }
    return { top: box.top, bottom: box.bottom, areaTop: area.top, areaBottom: area.bottom };
  });
  assert.ok(seen.top >= seen.areaTop - 1 && seen.bottom <= seen.areaBottom + 1, `${what} in view: ${JSON.stringify(seen)}`);
}

/** One button named Send in view, and one button drawn as the primary action. */
async function assertOnePrimary(page: Page, what: string): Promise<void> {
  assert.equal(await page.locator('[data-parley]').getByRole('button', { name: 'Send', exact: true }).filter({ visible: true }).count(), 1, `${what}: Send buttons`);
  assert.equal(await page.locator('[data-parley] .primary').filter({ visible: true }).count(), 1, `${what}: primary buttons`);
}
