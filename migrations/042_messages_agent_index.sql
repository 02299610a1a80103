-- messages_agent (agent_id) is a prefix of messages_agent_day (agent_id, created_at): every lookup by agent is served
-- by the latter alone, and each recorded message paid for an entry in both (two per answer; issue 27, capacity,
-- docs/performance.md "Capacity", fourth round).
drop index if exists messages_agent;
