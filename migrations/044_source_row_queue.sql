-- Text and Q&A sources added through the API are read from their own pending rows instead of a
-- pg-boss job a source (src/modules/knowledge/reading.ts, "the row queue"): such a row carries
-- job_id = 'rows' until a worker claims it (worker_id set, FOR UPDATE SKIP LOCKED, a batch a
-- statement). Its insert wakes the workers at the commit, as a job's send did.
create index sources_row_queue on sources (queued_at) where status = 'pending' and job_id = 'rows' and worker_id is null;

create function sources_row_queued() returns trigger language plpgsql as $$
begin
  perform pg_notify('parley_source_rows', '');
  return null;
end;
$$;
-- A notification is delivered at the commit; equal ones of one transaction are sent once.
create trigger sources_row_queued after insert on sources
  for each row when (new.job_id = 'rows') execute function sources_row_queued();
