-- Knowledge: sources, their stored files, passages and the BM25 term statistics.
alter table agents add column if not exists last_trained_at timestamptz;

create table sources (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null references agents(id) on delete cascade,
  type text not null,                 -- website, file, text, qa
  name text not null,
  url text,
  title text,
  status text not null,               -- pending, ready, failed
  error text,
  turned_away text,                   -- login_page, too_little_content
  size_bytes bigint not null default 0,
  chunk_count integer not null default 0,
  -- text: the body; qa: the answer (name holds the question); website: the page text; file: the text read from it
  content text not null default '',
  crawl_id text,
  -- Bumped each time the source is queued for reading, so a stale job leaves it alone.
  generation integer not null default 0,
  job_id text,
  queued_at timestamptz,
  created_at timestamptz not null,
  processed_at timestamptz
);
create index sources_agent on sources (agent_id, created_at desc, id desc);
create index sources_pending on sources (agent_id) where status = 'pending';
create unique index sources_agent_website_url on sources (agent_id, url) where type = 'website';

-- The bytes of a file source, kept so retraining reads them again without fetching.
create table source_files (
  source_id text primary key references sources(id) on delete cascade,
  kind text not null,                 -- pdf, docx, markdown, text
  bytes bytea not null
);

create table passages (
  id text primary key,
  agent_id text not null references agents(id) on delete cascade,
  source_id text not null references sources(id) on delete cascade,
  position integer not null,
  title text not null default '',
  url text,
  text text not null,
  length integer not null             -- lexemes in the passage (BM25 document length)
);
create index passages_source on passages (source_id, position);
create index passages_agent on passages (agent_id);

-- BM25 statistics, kept in step with passages in the same transaction.
create table passage_terms (
  passage_id text not null references passages(id) on delete cascade,
  agent_id text not null,
  term text not null,
  tf integer not null,
  primary key (passage_id, term)
);
create index passage_terms_agent_term on passage_terms (agent_id, term);

create table agent_term_stats (
  agent_id text not null references agents(id) on delete cascade,
  term text not null,
  df integer not null,
  primary key (agent_id, term)
);

create table agent_stats (
  agent_id text primary key references agents(id) on delete cascade,
  passage_count integer not null default 0,
  total_length bigint not null default 0
);

-- Retrains per agent per UTC day (YYYY-MM-DD).
create table retrain_counts (
  agent_id text not null references agents(id) on delete cascade,
  day text not null,
  count integer not null default 0,
  primary key (agent_id, day)
);
