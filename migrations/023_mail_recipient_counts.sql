-- Mails to addresses a visitor typed, counted per address and hour across the whole
-- service (src/platform/mail.ts, docs/security.md "Mail and other abuse"): a ticket
-- form must not become a way to flood someone else's mailbox. The address is kept
-- only as its SHA-256; rows older than the last hour are deleted as new ones come.
create table mail_recipient_counts (
  recipient_hash text not null,
  hour_start timestamptz not null,
  mails integer not null,
  primary key (recipient_hash, hour_start)
);
create index mail_recipient_counts_hour on mail_recipient_counts (hour_start);
