/**
 * Deliveries, driven by the database (spec 6, 3.4): every worker fans waiting
 * domain events out into deliveries and claims due deliveries for an attempt,
 * the moment an event is recorded (its notification at the commit), whenever an
 * attempt ends or the test clock moves, and every second for retries that fall
 * due. The rows are the durable jobs: a claim lapses after CLAIM_SECONDS of real
 * time, so a worker killed mid-attempt leaves the delivery to the next one (a
 * receiver may then see it twice, under the same service-delivery). Attempts run
 * without holding up the sweep, at most PER_WEBHOOK at a time per webhook and
 * with no global limit one tenant could fill.
 */
import type { Context } from '../../context.ts';
import { DOMAIN_EVENTS_CHANNEL } from '../../platform/domain-events.ts';
import { newId } from '../../platform/ids.ts';
import { runPeriodically } from '../../platform/periodic.ts';
import { ACKNOWLEDGE_MS, attempt } from './delivery.ts';
import { claimDue, deleteOldDeliveries, fanOut } from './store.ts';

/** A retry falls due at most this late; new events do not wait for it (they wake the sweep). */
const SWEEP_EVERY_MS = 1000;
/** How long a notified event waits for others recorded just after it. */
const GATHER_MS = 20;
const PER_WEBHOOK = 8;
const CLAIM_BATCH = 1000;
/** Longer than an attempt can take (5 s, plus the name's lookup and the writes after). */
const CLAIM_SECONDS = 15;
const RETENTION_DAYS = 7;
const RETENTION_EVERY_MS = 10 * 60_000;

/** `sweepEveryMs`: a test makes the sweep rare, to see that a recorded event wakes it. */
export async function webhooksWorker(ctx: Context, options: { sweepEveryMs?: number } = {}): Promise<void> {
  const running = new Set<Promise<void>>();

  const sweep = async (): Promise<void> => {
    await fanOut(ctx.db, ctx.clock.now(), () => newId('dlv'));
    const realNow = new Date();
    const claimed = await claimDue(ctx.db, ctx.clock.now(), realNow, new Date(realNow.getTime() + CLAIM_SECONDS * 1000), PER_WEBHOOK, CLAIM_BATCH);
    for (const delivery of claimed) {
      const work: Promise<void> = attempt(ctx, delivery)
        .catch((error) => console.error('[webhooks] attempt', delivery.id, error))
        .finally(() => {
          running.delete(work);
          // A finished attempt frees a place for its webhook's next delivery.
          deliveries.kick();
        });
      running.add(work);
    }
  };
  const deliveries = runPeriodically({ name: 'webhooks', everyMs: options.sweepEveryMs ?? SWEEP_EVERY_MS, testClock: ctx.testClock }, sweep);
  // Events recorded close together are swept together: on the embedded store every sweep waits for the one
  // connection with the requests that record them, so a sweep for every notification slowed a burst of leads.
  let gathering: NodeJS.Timeout | undefined;
  const sweepSoon = () => {
    gathering ??= setTimeout(() => {
      gathering = undefined;
      deliveries.kick();
    }, GATHER_MS);
  };
  const events = await ctx.database.listen(DOMAIN_EVENTS_CHANNEL, sweepSoon, sweepSoon);
  const retention = runPeriodically({ name: 'webhooks retention', everyMs: RETENTION_EVERY_MS, testClock: ctx.testClock }, () =>
    deleteOldDeliveries(ctx.db, new Date(ctx.clock.now().getTime() - RETENTION_DAYS * 86_400_000)),
  );
  ctx.onClose(async () => {
    await events.close();
    clearTimeout(gathering);
    await retention.stop();
    await deliveries.stop();
    // Attempts under way finish (each is bounded by the acknowledgement time) before the database closes.
    // The bound's timer is cleared once they have: left running, it kept a closed service's process alive 6 s.
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...running]), new Promise((r) => (bound = setTimeout(r, ACKNOWLEDGE_MS + 1000)))]);
    clearTimeout(bound);
  });
}
