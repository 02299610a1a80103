-- Every agent has its agent_storage row from its creation (a row of 0 bytes until its first source), so
-- that a text or Q&A source can be checked against the allowance and stored in one statement that
-- locks that row (src/modules/knowledge/store.ts, insertWithinAllowance): a row that does not exist
-- cannot be locked. Before this, the row came with the agent's first source.
create function agent_storage_agent_added() returns trigger language plpgsql as $$
begin
  insert into agent_storage (agent_id, used_bytes) values (new.id, 0) on conflict (agent_id) do nothing;
  return null;
end;
$$;
create trigger agent_storage_agent_added after insert on agents
  for each row execute function agent_storage_agent_added();

insert into agent_storage (agent_id, used_bytes)
  select id, 0 from agents
  on conflict (agent_id) do nothing;
