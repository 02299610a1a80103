-- The agent's terms by their first letters (src/modules/knowledge/compounds.ts): a Dutch or German
-- question's word that the index lacks is searched by the index's longer terms that start with it,
-- the compounds it begins ("cafeïne" in "cafeïnevrije"). Compared byte by byte (text_pattern_ops),
-- so that a prefix is one range of the index whatever the database's collation.
create index agent_term_stats_prefix on agent_term_stats (agent_id, term text_pattern_ops);
