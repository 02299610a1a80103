-- An agent's passage table (its passages' numbers and lengths, which the process reads once per index version
-- before it keeps any of the agent's posting lists: src/modules/knowledge/postings.ts, readTable) read from an
-- index alone, in number order, instead of a scan of the passages' heap, texts and all (issue 27, the first pass at
-- a million passages; docs/performance.md, "Search at a million passages", eleventh round). It serves every lookup
-- by agent the index it replaces served.
create index passages_agent_seq on passages (agent_id, seq) include (length);
drop index passages_agent;
