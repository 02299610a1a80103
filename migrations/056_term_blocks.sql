-- Each large agent's posting lists a second time, as blocks of varints ready to read (src/modules/knowledge/blocks.ts):
-- a derived read cache of passage_postings, built by a background job off the write path, up to the agent's blocks
-- watermark (agent_blocks.through_seq). Writes and deletes never touch it: a deleted passage's postings stay in their
-- blocks and are skipped when read (their numbers have no place in the reader's passage table); the job compacts an
-- agent's blocks once too much of them is gone. A question reads a term's blocks and, after them, the postings
-- numbered past the watermark from passage_postings, in one statement (postings.ts, readTerms). Issue 27, the first
-- pass at a million passages (docs/performance.md, "Search at a million passages", thirteenth round).
create table agent_blocks (
  agent_id text primary key references agents(id) on delete cascade,
  -- Every posting of a passage numbered up to this is in the agent's blocks (or its passage was deleted since).
  through_seq bigint not null,
  -- The passages numbered up to through_seq when the blocks were built: against those still there, what was deleted.
  passages_covered bigint not null,
  -- Extensions since the last compaction (each adds a short block to every term it touches).
  extensions integer not null default 0,
  built_at timestamptz not null default now()
);

create table term_blocks (
  agent_id text not null references agents(id) on delete cascade,
  term_id bigint not null,
  -- The number of the block's first passage; the others follow as gaps.
  first_seq bigint not null,
  count integer not null,
  -- Per posting: varint(gap * 2 + (tf <> 1)), then varint(tf) when tf is not 1 (gap from the posting before, 0 first).
  bytes bytea not null,
  primary key (agent_id, term_id, first_seq)
);

-- When the agent's passages were last written (by the statements that write or remove them, which update this row
-- anyway): the blocks' job waits for a few quiet seconds, so that it does not run again and again beside a retrain.
alter table agent_stats add column written_at timestamptz;
