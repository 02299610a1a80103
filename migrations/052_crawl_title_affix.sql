-- The site's name in its page titles (src/modules/knowledge/crawl/site-name.ts): the prefix or
-- suffix, with its separator, that most of a crawl's page titles share ("| Koffiebranderij De
-- Bonenbaas"), found from the titles themselves. A page of the crawl is indexed by its own part
-- of the title (the home page by its whole title), so the name is not in every passage; the
-- source's title shown to people is unchanged. Null: none found (yet).
alter table crawls add column title_prefix text, add column title_suffix text;
