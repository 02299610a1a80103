-- Mail an agent wrote carries Auto-Submitted: auto-replied (docs/email.md, "Loops").
alter table mails add column auto_reply boolean not null default false;

-- A received mail is claimed by its Message-ID before it is answered: the same mail
-- delivered again is taken (250) and not answered, nor charged, twice.
delete from email_messages a using email_messages b
  where a.direction = 'in' and b.direction = 'in' and a.agent_id = b.agent_id and a.message_id = b.message_id and a.id > b.id;
create unique index email_messages_received_once on email_messages (agent_id, message_id) where direction = 'in';
