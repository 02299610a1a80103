-- The charges of one API process's overlapping answers taken in one statement (issue 27, capacity; docs/performance.md
-- "Capacity", seventh round): one commit for all of them instead of one each. Each charge is charge_credits
-- (migrations 019 and 051) called in the order given, so within a workspace a later charge sees the earlier ones and
-- exactly the charge that would cross the limit is refused (null at its place), as when they were sent one by one.
create function charge_credits_each(p_workspaces text[], p_months text[], p_credits integer[], p_included integer[])
returns integer[] language plpgsql as $$
declare
  charged integer[] := '{}';
begin
  for i in 1 .. coalesce(array_length(p_workspaces, 1), 0) loop
    charged := charged || charge_credits(p_workspaces[i], p_months[i], p_credits[i], p_included[i]);
  end loop;
  return charged;
end
$$;
