-- A person signed in to the dashboard may ask for a conversation export link (/app/api/v1, docs/people.md):
-- the link dies with the key that asked for it, or with the asking person's membership of the workspace.
alter table conversation_exports alter column key_id drop not null;
alter table conversation_exports add column person_id text references people (id) on delete cascade;
alter table conversation_exports add constraint conversation_exports_one_asker check ((key_id is null) <> (person_id is null));
