/**
 * Browser tests of the dashboard (docs/dashboard.md, "Tests"): the real service on the store
 * under test, Debian's Chromium through playwright-core (one browser per test file, each
 * launch with a fresh profile of its own), people signed in through the link their mail
 * carries, and the checks every page must pass (axe, 375 px).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../src/modules/widget/browser.ts';
import { latestMailTo, linkIn, signIn, type SignedIn } from '../../src/modules/people/test-support.ts';
import { startService, type Service, type ServiceOptions } from './harness.ts';

export interface DashboardHarness {
  service: Service;
  browser: Browser;
  /** A new browser context (its own cookies) and a page in it; closed with the harness. */
  newPage(options?: { locale?: string; width?: number; height?: number }): Promise<Page>;
  /** A new workspace owned by `email` (an address of its own per test keeps the outbox unambiguous). */
  newWorkspace(email: string, options?: { name?: string; plan?: string }): Promise<string>;
  /** Opens /app signed out, asks for a sign-in link for `email`, opens the link from the outbox: the page is then signed in. Returns the link. */
  signInByMail(page: Page, email: string): Promise<string>;
  /** Signs the page's context in as a person of the workspace without the mail (a session cookie from an operator link). */
  signInDirectly(page: Page, workspaceId: string, email?: string): Promise<void>;
  /** Gives the page's context the session cookie of a person already signed in (people/test-support.ts signIn). */
  useSession(page: Page, person: SignedIn): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;

/** Starts the service and the browser. Call once per file (before), close after. */
export async function startDashboard(options: ServiceOptions = {}): Promise<DashboardHarness> {
  const service = await startService(options);
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  const harness: DashboardHarness = {
    service,
    browser,
    newPage: async ({ locale = 'en-GB', width = 1280, height = 900 } = {}) => {
      const context = await browser.newContext({ locale, viewport: { width, height }, baseURL: service.url });
      contexts.push(context);
      return context.newPage();
    },
    newWorkspace: async (email, { name = `Dashboard ${++counter}`, plan = 'studio' } = {}) => {
      const created = await service.admin('POST', '/workspaces', { name, plan, ownerEmail: email });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.data.id as string;
    },
    signInByMail: async (page, email) => {
      await page.goto('/app');
      await page.getByRole('textbox', { name: 'E-mail' }).fill(email);
      await page.getByRole('button', { name: 'Send sign-in link' }).click();
      await page.getByRole('status').filter({ hasText: email }).waitFor();
      const link = linkIn((await latestMailTo(service, email)).text);
      // The link's page submits itself: the browser lands on the dashboard, signed in.
      await page.goto(new URL(link).pathname + new URL(link).search);
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      return link;
    },
    signInDirectly: async (page, workspaceId, email) => harness.useSession(page, await signIn(service, workspaceId, email)),
    useSession: async (page, person) => {
      const [name, value] = person.cookie.split('=') as [string, string];
      await page.context().addCookies([{ name, value, url: service.url }]);
    },
    close: async () => {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await service.close();
    },
  };
  return harness;
}

const requireHere = createRequire(import.meta.url);
let axeSource: string | undefined;

/** Runs axe-core (node_modules/axe-core/axe.min.js) in the page; fails on any serious or critical violation, naming each. */
export async function expectNoSeriousAxeViolations(page: Page, what = page.url()): Promise<void> {
  axeSource ??= await readFile(requireHere.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return (result.violations as any[]).map((v) => ({ id: v.id, impact: v.impact as string, help: v.help as string, nodes: (v.nodes as any[]).map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `axe found serious or critical violations on ${what}:\n${JSON.stringify(serious, null, 2)}`);
}

/** Sets the page 375 px wide and checks nothing makes it scroll sideways. */
export async function expectFitsPhoneWidth(page: Page, what = page.url()): Promise<void> {
  const size = page.viewportSize();
  await page.setViewportSize({ width: 375, height: 812 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (size) await page.setViewportSize(size);
  assert.ok(overflow <= 0, `${what} is ${overflow}px wider than 375px`);
}

/** Presses Tab until the focused element has this role and name (fails after `limit` presses): keyboard-only navigation. */
export async function tabTo(page: Page, role: string, name: string, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      if (!element) return undefined;
      const labelled = element.getAttribute('aria-label') ?? (element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : null) ?? element.textContent;
      const tag = element.tagName.toLowerCase();
      const type = element.getAttribute('type');
      const role = element.getAttribute('role') ?? (tag === 'a' ? 'link' : tag === 'button' ? 'button' : tag === 'select' ? 'combobox' : tag === 'textarea' || (tag === 'input' && type !== 'radio' && type !== 'checkbox') ? 'textbox' : tag === 'input' ? type : tag);
      return { role, name: (labelled ?? '').trim() };
    });
    if (focused?.role === role && focused.name.startsWith(name)) return;
  }
  throw new Error(`no ${role} "${name}" reached with Tab`);
}
