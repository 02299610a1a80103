-- People who run workspaces, their roles, their sessions and their one-time sign-in links
-- (docs/people.md). Tokens of sessions and links are stored only as SHA-256 fingerprints.
create table people (
  id text primary key,
  email text not null,
  name text not null default '',
  language text not null default 'en' check (language in ('en', 'nl')),
  -- argon2id (PHC string); null until the person sets a password.
  password_hash text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- One person per address, whatever its case.
create unique index people_email on people (lower(email));

create table memberships (
  workspace_id text not null references workspaces (id) on delete cascade,
  person_id text not null references people (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'member')),
  -- For a member: the agents they may reach; null is every agent.
  agent_ids jsonb,
  created_at timestamptz not null,
  primary key (workspace_id, person_id)
);
create unique index memberships_one_owner on memberships (workspace_id) where role = 'owner';
create index memberships_person on memberships (person_id);

create table sessions (
  id text primary key,
  fingerprint text not null unique,
  person_id text not null references people (id) on delete cascade,
  -- The workspace the session works in; removal from it ends the session.
  workspace_id text not null references workspaces (id) on delete cascade,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  idle_expires_at timestamptz not null,
  expires_at timestamptz not null,
  user_agent text not null default ''
);
create index sessions_person on sessions (person_id, workspace_id);

create table sign_in_links (
  id text primary key,
  fingerprint text not null unique,
  email text not null,
  person_id text references people (id) on delete cascade,
  workspace_id text not null references workspaces (id) on delete cascade,
  purpose text not null check (purpose in ('sign_in', 'invite')),
  -- The role an invitation gives (and, for a member, the agents).
  role text check (role in ('admin', 'member')),
  agent_ids jsonb,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index sign_in_links_workspace on sign_in_links (workspace_id, purpose);

-- The audit log names the person who made a change made in the dashboard (a key's change names the key).
alter table audit_log add column person_id text;

-- Threading of outgoing mail (a ticket's confirmation and the team's replies): the headers
-- Message-ID, In-Reply-To and References, as written (with angle brackets; references
-- separated by spaces). Null: nodemailer makes a Message-ID, and the mail starts no thread.
alter table mails add column message_id text;
alter table mails add column in_reply_to text;
alter table mails add column references_ids text;

-- A team reply's mail, so its entry can say when that mail was finally given up (mailError).
alter table ticket_entries add column mail_id text;
create index ticket_entries_mail on ticket_entries (mail_id) where mail_id is not null;

create function ticket_entry_mail_failed() returns trigger language plpgsql as $$
begin
  update ticket_entries set mail_error = coalesce(new.last_error, 'The mail could not be delivered.') where mail_id = new.id;
  return new;
end
$$;
-- Kept in the database, so the mail delivery (a lower area) need not know about tickets.
create trigger ticket_entry_mail_failed after update of status on mails
  for each row when (new.status = 'failed' and old.status <> 'failed') execute function ticket_entry_mail_failed();
