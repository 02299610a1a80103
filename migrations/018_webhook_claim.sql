-- The sweep's claim (src/modules/webhooks/store.ts, claimDue) walks the webhooks with waiting
-- deliveries, reads each one's first due deliveries in order and counts its running ones, all
-- through these indexes: a sweep costs the same however large the backlog behind them is.
drop index webhook_deliveries_due;
drop index webhook_deliveries_webhook;
create index webhook_deliveries_webhook_due on webhook_deliveries (webhook_id, next_attempt_at, id) where status = 'pending';
create index webhook_deliveries_running on webhook_deliveries (webhook_id, claimed_until) where status = 'pending' and claimed_until is not null;
