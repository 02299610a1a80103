-- The e-mail channel's IMAP mailboxes (docs/email.md, "IMAP"): the password sealed with
-- the service's secret key (never in the agent's settings, which the API returns), and
-- what has been taken from the mailbox, so that each mail is taken once by whichever
-- worker looks, also after a restart.
create table email_mailboxes (
  agent_id text primary key references agents(id) on delete cascade,
  password_sealed text not null,
  -- The folder's UIDVALIDITY when last_uid was read; another value means the UIDs were renumbered.
  uid_validity bigint,
  -- Every mail up to this UID has been handled.
  last_uid bigint not null default 0,
  -- A worker looking into the mailbox holds it until then (one at a time; a dead worker's hold runs out).
  leased_until timestamptz,
  leased_by text,
  last_checked_at timestamptz,
  last_error text,
  updated_at timestamptz not null
);
