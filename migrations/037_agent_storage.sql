-- The storage an agent's sources take (what counts against plan.storagePerAgentBytes), kept
-- as a running total instead of a sum over the agent's sources on every POST (a sum grows with
-- the agent; this is one row). Triggers keep it in the same transaction as every write that adds,
-- removes or resizes a source, whatever area or cascade makes it (an agent's or workspace's
-- deletion included). `used_bytes = used_bytes + d` under the row's lock: concurrent writers
-- add one after the other, none loses another's update.
create table agent_storage (
  agent_id text primary key references agents(id) on delete cascade,
  used_bytes bigint not null default 0
);

create function agent_storage_source_added() returns trigger language plpgsql as $$
begin
  insert into agent_storage (agent_id, used_bytes) values (new.agent_id, new.size_bytes)
    on conflict (agent_id) do update set used_bytes = agent_storage.used_bytes + excluded.used_bytes;
  return null;
end;
$$;
create trigger agent_storage_source_added after insert on sources
  for each row execute function agent_storage_source_added();

create function agent_storage_source_resized() returns trigger language plpgsql as $$
begin
  update agent_storage set used_bytes = used_bytes + new.size_bytes - old.size_bytes where agent_id = new.agent_id;
  return null;
end;
$$;
create trigger agent_storage_source_resized after update of size_bytes on sources
  for each row when (old.size_bytes is distinct from new.size_bytes) execute function agent_storage_source_resized();

-- Once a statement: deleting an agent or a workspace removes its sources in one statement,
-- which then makes one update an agent rather than one a source.
create function agent_storage_sources_removed() returns trigger language plpgsql as $$
begin
  update agent_storage set used_bytes = agent_storage.used_bytes - gone.bytes
    from (select agent_id, sum(size_bytes) as bytes from removed group by agent_id) gone
    where agent_storage.agent_id = gone.agent_id;
  return null;
end;
$$;
create trigger agent_storage_sources_removed after delete on sources
  referencing old table as removed
  for each statement execute function agent_storage_sources_removed();

-- The totals of the sources already there: the triggers above hold the table's lock from here to
-- the commit, so no source is written between the sum and the triggers taking over.
insert into agent_storage (agent_id, used_bytes)
  select agent_id, sum(size_bytes) from sources group by agent_id;
