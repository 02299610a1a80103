-- Agency clients and their monthly reports (spec 2.12, 4.12; docs/clients.md).

-- One client per agent at most. A client taken off (DELETE) is deleted with its reports,
-- so a client recorded later for the same agent starts with an empty archive and a new link.
create table clients (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null unique references agents(id) on delete cascade,
  name text not null,
  email text not null,
  language text not null,
  service_fee_eur numeric(12, 2),
  setup_fee_eur numeric(12, 2),
  intro text not null,
  signature text not null,
  report_day integer not null check (report_day between 1 and 28),
  transcripts boolean not null,
  reports_enabled boolean not null,
  -- When reports were last switched on: a report falls due only on a report day after it.
  reports_enabled_at timestamptz,
  hold_for_review boolean not null,
  -- Replies to reports: the workspace owner's address when the client was first recorded.
  reply_to text,
  -- The archive link's token is shown again by GET (spec 2.12), so it is kept; it is
  -- looked up by its fingerprint. Rotating replaces both at once.
  link_token text not null,
  link_fingerprint text not null unique,
  since timestamptz not null,
  updated_at timestamptz not null
);
create index clients_workspace on clients (workspace_id);

-- One row per client and month, claimed before the report is made: the unique key is what
-- makes a report happen once however many workers sweep at once.
create table client_reports (
  id text primary key,
  client_id text not null references clients(id) on delete cascade,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null references agents(id) on delete cascade,
  month text not null,                 -- YYYY-MM, the month the report is about
  status text not null,                -- pending, making, held, sent, failed (after the last attempt)
  language text not null,
  attempts integer not null default 0,
  -- A claim: a worker that dies while making the report leaves it to be made again after this.
  lease_until timestamptz,
  last_error text,
  pdf bytea,
  created_at timestamptz not null,
  finished_at timestamptz,
  unique (client_id, month)
);
create index client_reports_unfinished on client_reports (status) where status in ('pending', 'making');

-- Mail gains a reply-to address and attachments (inline images referred to by cid, files).
alter table mails add column reply_to text;
create table mail_attachments (
  mail_id text not null references mails(id) on delete cascade,
  position integer not null,
  file_name text not null,
  content_type text not null,
  -- Set for an inline image the HTML part shows as cid:<content_id>.
  content_id text,
  content bytea not null,
  primary key (mail_id, position)
);
