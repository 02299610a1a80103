/**
 * One attempt at one delivery (spec 6): the body of 6.1, the headers of 6.2, the
 * signature of 6.3, sent through the guarded fetch (the name is looked up and
 * checked again on every attempt, a redirect is not followed), and its outcome
 * per 6.4: a 2xx within 5 seconds is delivered, a 410 deletes the webhook, anything
 * else is retried on the schedule below until the seventh failure switches the
 * webhook off and mails the workspace's owner.
 */
import { createHmac } from 'node:crypto';
import type { Context } from '../../context.ts';
import type { Db } from '../../platform/db.ts';
import { SafeFetchError } from '../../platform/safe-fetch-error.ts';
import * as store from './store.ts';
import { dashboardPages, noticeRecipients, recordNotices, type NoticeKind } from '../people/notifications.ts';
import { switchedOffMail } from './mails.ts';

/** The wait after each failed attempt: 7 attempts over about 22 hours. */
export const RETRY_DELAYS_SECONDS = [5 * 60, 15 * 60, 3600, 3 * 3600, 6 * 3600, 12 * 3600];
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** Retries spread a little (up to 1% later), so a receiver's recovery is not met by every retry at once. */
const JITTER = 0.01;
export const ACKNOWLEDGE_MS = 5_000;
export const USER_AGENT = 'Service-Webhooks/1.0';

/** Spec 6.1, written in a fixed order; data is the subject's JSON exactly as it was recorded. */
export function deliveryBody(event: store.Outgoing['event']): string {
  const head = JSON.stringify({ id: event.id, type: event.type, createdAt: event.created_at.toISOString(), agentId: event.agent_id });
  return `${head.slice(0, -1)},"data":${event.data}}`;
}

/** Spec 6.3: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">. */
export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

type Outcome = { kind: 'delivered'; status: number } | { kind: 'gone'; status: number } | { kind: 'failed'; status: number | null; error: string };

export async function attempt(ctx: Context, delivery: store.DeliveryRow): Promise<void> {
  const outgoing = await store.outgoing(ctx.db, delivery);
  if (!outgoing) return; // the webhook was deleted: nothing more is sent to it
  if (!outgoing.webhook.active) {
    await ctx.db.updateTable('webhook_deliveries').set({ status: 'failed', claimed_until: null }).where('id', '=', delivery.id).execute();
    return;
  }
  const startedAt = ctx.clock.now();
  const started = performance.now();
  const outcome = await send(ctx, outgoing, startedAt);
  await store.recordAttempt(ctx.db, {
    delivery_id: delivery.id,
    number: delivery.attempts,
    at: startedAt,
    status_code: outcome.status,
    error: outcome.kind === 'failed' ? outcome.error.slice(0, 500) : null,
    duration_ms: Math.round(performance.now() - started),
  });
  if (outcome.kind === 'delivered') return store.markDelivered(ctx.db, delivery.id, ctx.clock.now());
  if (outcome.kind === 'gone') return store.deleteWebhookById(ctx.db, outgoing.webhook.id);
  // Counted from the attempt's start, so the schedule does not drift by how long attempts take.
  if (delivery.attempts < MAX_ATTEMPTS) return store.scheduleRetry(ctx.db, delivery.id, retryAt(startedAt, delivery.attempts));
  await switchOff(ctx, outgoing);
}

async function send(ctx: Context, { delivery, webhook, event }: store.Outgoing, at: Date): Promise<Outcome> {
  const body = deliveryBody(event);
  try {
    const response = await ctx.safeFetch.fetch(webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'service-event': event.type,
        'service-delivery': delivery.id,
        'service-signature': signatureHeader(webhook.secret, body, at),
        'user-agent': USER_AGENT,
      },
      body,
      timeoutMs: ACKNOWLEDGE_MS,
      maxRedirects: 0,
      readBody: false,
    });
    if (response.status >= 200 && response.status < 300) return { kind: 'delivered', status: response.status };
    if (response.status === 410) return { kind: 'gone', status: 410 };
    const redirect = response.status >= 300 && response.status < 400;
    return { kind: 'failed', status: response.status, error: redirect ? 'redirect (not followed)' : `status ${response.status}` };
  } catch (error) {
    if (!(error instanceof SafeFetchError)) throw error;
    return { kind: 'failed', status: null, error: `${error.kind}: ${error.message}` };
  }
}

function retryAt(now: Date, attemptsMade: number): Date {
  const delay = RETRY_DELAYS_SECONDS[attemptsMade - 1]! * 1000;
  return new Date(now.getTime() + delay + Math.floor(Math.random() * delay * JITTER));
}

/**
 * The seventh failure: off, every waiting delivery given up, the people told
 * (the mails in the same transaction): those chosen for the events it carries of
 * its agent (every agent, for a webhook of the whole workspace) who may handle
 * webhooks, else the owner (docs/people.md, "Notifications").
 */
async function switchOff(ctx: Context, { webhook }: store.Outgoing): Promise<void> {
  const now = ctx.clock.now();
  const mailIds = await ctx.db.transaction().execute(async (trx) => {
    if (!(await store.switchOff(trx, webhook.id, now))) return [];
    return mailPeople(ctx, trx, webhook);
  });
  await ctx.mailer.dispatch(mailIds);
}

async function mailPeople(ctx: Context, db: Db, webhook: store.Outgoing['webhook']): Promise<Array<string | null>> {
  const row = await db.selectFrom('webhooks').select(['agent_id', 'events']).where('id', '=', webhook.id).executeTakeFirst();
  const kinds = (row?.events ?? []).map((event) => (event === 'lead.created' ? 'leads' : 'tickets') as NoticeKind);
  const recipients = await noticeRecipients(db, webhook.workspace_id, row?.agent_id ? [row.agent_id] : null, kinds, { managersOnly: true });
  const mail = switchedOffMail(recipients.language, { id: webhook.id, host: new URL(webhook.url).host, page: dashboardPages.webhook(ctx, webhook.id) });
  return recordNotices(ctx, db, recipients, mail);
}
