-- Chat: conversations, their messages, corrections of answers and PDF export links.
create table conversations (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null references agents(id) on delete cascade,
  channel text not null,              -- widget, iframe, api, playground, email
  user_id text,
  opened_by text,                     -- launcher, greeting, nudge
  from_address text,                  -- sender of an e-mail conversation
  started_at timestamptz not null,
  last_message_at timestamptz not null,
  message_count integer not null default 0,
  first_message text not null default '',
  last_confidence integer
);
create index conversations_agent on conversations (agent_id, started_at desc, id desc);
create index conversations_agent_last on conversations (agent_id, last_message_at);

create table messages (
  id text primary key,
  conversation_id text not null references conversations(id) on delete cascade,
  agent_id text not null,
  -- Order within the conversation: a question and its answer can share a millisecond.
  position integer not null,
  role text not null,                 -- user (a question) or assistant (an answer)
  content text not null,
  created_at timestamptz not null,
  attachments jsonb not null default '[]',
  page_url text,
  confidence integer,
  grounding text,                     -- supported, partial, unsupported
  sources jsonb not null default '[]',
  feedback smallint,
  model text,
  credits integer not null default 0,
  held boolean not null default false,
  -- The Q&A source a correction of this answer made (an answer is corrected once).
  correction_source_id text,
  unique (conversation_id, position)
);
create index messages_agent on messages (agent_id);

-- Credits spent this month from purchased packs (the rest of `used` came from the plan's included credits).
alter table credit_usage add column if not exists from_packs integer not null default 0;

create table conversation_exports (
  id text primary key,
  -- SHA-256 of the link's secret: the link is a credential, stored like a key.
  fingerprint text not null unique,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null references agents(id) on delete cascade,
  key_id text not null references api_keys(id) on delete cascade,
  channel text,
  from_day text not null,
  to_day text not null,
  -- A key tied to one agent never sees test conversations, nor does its export.
  include_tests boolean not null,
  expires_at timestamptz not null,
  created_at timestamptz not null
);
