-- Every live worker process beats here every few seconds (src/platform/heartbeat.ts).
-- Work held by a worker whose beat is older than PARLEY_LOST_WORK_AFTER_SECONDS (it
-- died) is taken up again; work of a live worker, however slow, is left to it.
create table worker_heartbeats (
  worker_id text primary key,
  started_at timestamptz not null default now(),
  beat_at timestamptz not null default now()
);

-- The worker holding a crawl page being fetched, or a source being read (null: none,
-- or a process from before this migration, judged by its claim's age as before).
alter table crawl_pages add column worker_id text;
alter table sources add column worker_id text;
create index crawl_pages_held on crawl_pages (worker_id) where status = 'fetching';
create index sources_held on sources (worker_id) where status = 'pending' and worker_id is not null;
