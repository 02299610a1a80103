-- A version of each agent's search index, for the postings the API processes keep in memory
-- (src/modules/knowledge/postings.ts, docs/knowledge.md "Postings in memory"). Every write to an
-- agent's index updates its agent_stats row in the same transaction (indexing.ts takes the row
-- first), so a new number on every update of the row marks every change; a reader that sees a
-- number it did not load its postings under reads them again. From a sequence, so that an
-- agent's row made again never repeats a number.
create sequence agent_index_versions;

alter table agent_stats add column version bigint not null default nextval('agent_index_versions');

create function agent_stats_next_version() returns trigger language plpgsql as $$
begin
  new.version := nextval('agent_index_versions');
  return new;
end
$$;
create trigger agent_stats_next_version before update on agent_stats
  for each row execute function agent_stats_next_version();
