-- The surface a change came through: 'mcp' for the MCP server's tools; null for the REST API, the operator
-- API and the export links (every entry written before this column).
alter table audit_log add column via text check (via in ('mcp'));
