-- Visitor files: what visitors send in the chat, with the text the agent read from them (spec 2.9, 4.9).
create table visitor_files (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  agent_id text not null references agents(id) on delete cascade,
  -- Null while the file waits for the question it was sent for; erasing the conversation erases its files.
  conversation_id text references conversations(id) on delete cascade,
  -- Fingerprint of the visitor token the file was sent with: a file sent before a conversation
  -- can be attached only by the visitor holding that token.
  visitor_token_fingerprint text,
  file_name text not null,
  kind text not null,                 -- pdf, docx, text, image
  media_type text not null,
  size_bytes integer not null,
  pages integer,
  truncated boolean not null,
  ocr_pages integer,
  text text,                          -- what the agent was given to read; null for a picture and once dropped
  bytes bytea,                        -- the file as sent; null once dropped (stored false)
  created_at timestamptz not null,
  -- The end of the file's 30 days: its text and bytes are dropped then (a file never attached is deleted).
  drop_at timestamptz not null
);
create index visitor_files_agent on visitor_files (agent_id);
create index visitor_files_conversation on visitor_files (conversation_id);
create index visitor_files_due on visitor_files (drop_at) where bytes is not null or text is not null or conversation_id is null;
