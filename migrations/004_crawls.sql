-- Website crawls: one row per crawl, and its frontier (every address it found).
create table crawls (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null references agents(id) on delete cascade,
  url text not null,
  mode text not null,                  -- links, sitemap, single
  exclude_paths jsonb not null default '[]'::jsonb,
  status text not null,                -- queued, running, completed, failed, cancelled
  stop_reason text,                    -- page_limit, storage_limit
  error text,                          -- why a failed crawl failed (not in the API)
  -- The site the crawl stays on: host without "www.", plus a port other than the default.
  site text not null,
  seeded boolean not null default false,
  robots_txt text,
  created_at timestamptz not null,
  started_at timestamptz,
  ended_at timestamptz
);
create index crawls_agent on crawls (agent_id, created_at desc, id desc);
create index crawls_unfinished on crawls (status) where status in ('queued', 'running');

create table crawl_pages (
  crawl_id text not null references crawls(id) on delete cascade,
  url text not null,                   -- normalised
  depth integer not null,
  -- queued, fetching (claimed by a worker), done, failed, turned_away, skipped
  status text not null,
  -- false for an address recorded only as another page's canonical or redirect target
  counted boolean not null default true,
  attempts integer not null default 0,
  claimed_at timestamptz,
  content_hash text,
  reason text,
  primary key (crawl_id, url)
);
create index crawl_pages_queue on crawl_pages (crawl_id, depth) where status = 'queued';
create index crawl_pages_claimed on crawl_pages (crawl_id) where status = 'fetching';
-- Two pages with the same text are one page.
create unique index crawl_pages_hash on crawl_pages (crawl_id, content_hash) where content_hash is not null;
