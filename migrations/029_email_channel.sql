-- The e-mail channel (docs/email.md): every mail received for an agent or sent by it,
-- by its Message-ID, so a reply (In-Reply-To, References) finds its conversation and a
-- bounce finds the mail it bounces.
create table email_messages (
  id text primary key,
  agent_id text not null references agents(id) on delete cascade,
  -- The Message-ID without its angle brackets.
  message_id text not null,
  direction text not null,            -- in (received) or out (sent by the service)
  conversation_id text references conversations(id) on delete cascade,
  -- The chat message this mail carried (the question received, the answer sent or held).
  chat_message_id text,
  sender text not null,
  subject text not null default '',
  -- answered, held, or why a received mail was not answered (auto_reply, bounce, own_address, dmarc, limited, empty, paused)
  outcome text not null,
  -- SPF, DKIM and DMARC of a received mail: { spf, dkim, dmarc, policy }.
  auth jsonb,
  -- A bounce of a sent mail: what the mail server said.
  mail_error text,
  created_at timestamptz not null
);
create index email_messages_by_id on email_messages (agent_id, message_id);
create index email_messages_conversation on email_messages (conversation_id);

-- Mail the e-mail channel sends leaves from the agent's own address (threaded with the columns of 024).
alter table mails add column from_address text;
