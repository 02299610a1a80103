-- Crawls keep an address's path as it is (docs/crawl.md, "Addresses"). Crawls made before
-- dropped every trailing slash, so a website source they recorded at ".../docs" may be
-- the page ".../docs/": a later crawl that reads ".../docs/" asks the server whether
-- ".../docs" leads there, and if so keeps one source. New crawls get false.
alter table crawls add column dropped_trailing_slash boolean not null default true;
alter table crawls alter column dropped_trailing_slash set default false;
