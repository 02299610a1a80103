-- File sources being fetched in a request (spec 4.6): until the file is stored as a source,
-- this row is what makes the agent busy, for every API process sharing the database.
create table file_fetches (
  id bigint generated always as identity primary key,
  agent_id text not null references agents(id) on delete cascade,
  started_at timestamptz not null,
  -- The fetch's time limit plus a margin: past it the fetch cannot still be running, so a row
  -- left by a process that died mid-fetch no longer counts.
  expires_at timestamptz not null
);
create index file_fetches_agent on file_fetches (agent_id, expires_at);
