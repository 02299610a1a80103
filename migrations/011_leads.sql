-- Leads: contact details a visitor left in the chat's lead form (spec 2.10, 4.10).
create table leads (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null references agents(id) on delete cascade,
  -- Erasing the conversation erases its lead (spec 3.6); erasing the lead leaves the conversation.
  conversation_id text references conversations(id) on delete cascade,
  name text,
  email text,
  phone text,
  company text,
  company_domain text,
  marketing boolean not null,
  moment text not null,               -- before, questions, weak_answer, button
  page_url text,
  page_title text,
  language text not null,
  -- What the form showed: { intro, consent, privacyUrl, marketing (null without a box) }.
  shown jsonb not null,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index leads_agent on leads (agent_id, created_at desc, id desc);
create index leads_conversation on leads (conversation_id);
create index leads_expiry on leads (expires_at);
