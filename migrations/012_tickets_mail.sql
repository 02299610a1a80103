-- Tickets (spec 2.11, 3.3, 4.11) and durable outgoing mail.

-- Mail recorded for SMTP delivery; a job sends it, retries follow next_attempt_at.
create table mails (
  id text primary key,
  recipient text not null,
  from_name text,
  subject text not null,
  text_body text not null,
  html_body text,
  status text not null default 'pending',   -- pending, sent, failed
  attempts integer not null default 0,
  -- When the next attempt is due; while an attempt runs, when it is given up as lost.
  next_attempt_at timestamptz not null,
  last_error text,
  created_at timestamptz not null,
  sent_at timestamptz
);
create index mails_due on mails (next_attempt_at) where status = 'pending';

-- The HTML part of a mail written to the outbox (GET /admin/v1/outbox lists the text part).
alter table outbox add column if not exists html text;

create table tickets (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null references agents(id) on delete cascade,
  -- Deleting a conversation deletes its tickets (spec 3.6).
  conversation_id text references conversations(id) on delete cascade,
  number integer not null,
  status text not null default 'open',       -- open, waiting, solved
  email text not null,
  name text,
  question text not null,
  language text not null,
  signed_in boolean not null default false,
  page_url text,
  helpdesk jsonb,                            -- { provider, number, url } once sent to a helpdesk
  created_at timestamptz not null,
  last_activity_at timestamptz not null,
  solved_at timestamptz,
  expires_at timestamptz,
  unique (agent_id, number)
);
create index tickets_agent_activity on tickets (agent_id, last_activity_at desc, id desc);
create index tickets_conversation on tickets (conversation_id) where conversation_id is not null;
create index tickets_expiry on tickets (expires_at) where expires_at is not null;

-- The last ticket number given out per agent: taken and raised in the ticket's own
-- transaction, so numbers neither repeat nor skip, also when tickets arrive together.
create table ticket_numbers (
  agent_id text primary key references agents(id) on delete cascade,
  last_number integer not null
);

create table ticket_entries (
  id text primary key,
  ticket_id text not null references tickets(id) on delete cascade,
  kind text not null,                        -- visitor, team, note, held
  body text not null,
  from_address text,
  mail_error text,
  created_at timestamptz not null
);
create index ticket_entries_ticket on ticket_entries (ticket_id, created_at, id);
