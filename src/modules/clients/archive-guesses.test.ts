import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { ARCHIVE_GUESS_WINDOW_SECONDS, ARCHIVE_GUESSES_PER_WINDOW } from './archive.ts';

describe('the report archive link cannot be guessed at speed: wrong links are counted per address, then 429 with Retry-After', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let link: string;

  before(async () => {
    service = await startService({ workers: false });
    ws = await service.seedWorkspace({ plan: 'agency' });
    const agent = await seedAgent(service, ws, 'Archive agent');
    const reply = await service.api('PUT', `/agents/${agent}/client`, { key: ws.keys.manage, body: { name: 'Garage Peters', email: 'peters@clients.example' } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    link = new URL(reply.body.data.report.link).pathname;
  });
  after(async () => service?.close());

  const open = (path: string) => fetch(`${service.url}${path}`);
  const wrongLink = (i: number) => `/reports/${String(i).padStart(48, 'x')}`;
  /** Moves the clock to the start of the next counting window, so no window edge passes mid-test. */
  async function nextWindow(): Promise<void> {
    const windowMs = ARCHIVE_GUESS_WINDOW_SECONDS * 1000;
    const now = service.ctx.clock.now().getTime();
    assert.equal((await service.admin('POST', '/clock', { advanceSeconds: Math.ceil((windowMs - (now % windowMs)) / 1000) + 1 })).status, 200);
  }

  test(`after ${ARCHIVE_GUESSES_PER_WINDOW} wrong links every archive request of the address is 429 rate_limited, the right link and its PDFs too, until the window ends`, async () => {
    await nextWindow();
    for (let i = 0; i < ARCHIVE_GUESSES_PER_WINDOW; i++) {
      const reply = await open(i % 2 === 0 ? wrongLink(i) : `${wrongLink(i)}/rep_xxxxxxxxxxxxxxxxxxxx.pdf`);
      assert.equal(reply.status, 404, `guess ${i}`);
      await reply.arrayBuffer();
    }
    for (const path of [wrongLink(99), link, `${link}/rep_xxxxxxxxxxxxxxxxxxxx.pdf`, '/reports/short']) {
      const reply = await open(path);
      assert.equal(reply.status, 429, path);
      const body = await reply.json();
      assert.equal(body.error.code, 'rate_limited');
      const retryAfter = Number(reply.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= ARCHIVE_GUESS_WINDOW_SECONDS, String(retryAfter));
    }
    await nextWindow();
    const reply = await open(link);
    assert.equal(reply.status, 200, 'the next window lets the address in again');
    await reply.arrayBuffer();
  });

  test('the right link is not counted: a client may open the archive as often as they like', async () => {
    await nextWindow();
    for (let i = 0; i < ARCHIVE_GUESSES_PER_WINDOW * 3; i++) {
      const reply = await open(link);
      assert.equal(reply.status, 200, `visit ${i}`);
      await reply.arrayBuffer();
    }
    const wrong = await open(wrongLink(1));
    assert.equal(wrong.status, 404);
    await wrong.arrayBuffer();
  });
});
