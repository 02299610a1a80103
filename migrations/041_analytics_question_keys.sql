-- The top questions of a period (src/modules/analytics/store.ts topQuestions) sum the counts per key
-- first and then read the text of only the ten keys kept, each from this index: the text of a key's
-- busiest day no longer needs an ordered aggregate over every key of the period (at a year of 10,000
-- mostly distinct questions, that aggregate was most of the figures' time). The key of a row never
-- changes, so the triggers' updates of its count stay heap-only.
create index analytics_questions_agent_key on analytics_questions (agent_id, key);
