import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { ADMIN_TOKEN_FILE } from '../bootstrap.ts';

const USAGE = `Usage: npx parley admin <command> [options]

  workspaces list [--limit N] [--cursor CURSOR]      newest first; pass pagination.nextCursor as --cursor for more
  workspaces create --name NAME [--plan PLAN] [--owner-email E] [--language L] [--hostname H]
  workspaces get WORKSPACE_ID
  workspaces update WORKSPACE_ID [--name N] [--plan P] [--status active|stopped] [--hostname H] [--owner-email E]
  credit-packs add WORKSPACE_ID --credits N
  keys list WORKSPACE_ID                              every key, oldest first, with lastUsedAt; revoked ones with revokedAt (never the key)
  keys create WORKSPACE_ID --name NAME --scope read|chat|manage [--agent AGENT_ID]
  keys revoke WORKSPACE_ID KEY_ID
  sign-in-link --workspace WORKSPACE_ID [--email E]   a fresh one-time sign-in link to the dashboard (24 hours; the owner's unless --email)
  audit WORKSPACE_ID
  outbox
  clock [--advance SECONDS | --now ISO_TIME]

Options: --url URL: the service to call (default PARLEY_PUBLIC_URL, else http://localhost:$PORT)
The operator token comes from PARLEY_ADMIN_TOKEN, else from the file ${ADMIN_TOKEN_FILE} in the service's data
directory: PARLEY_DATA_DIR, default ./data under the folder you run the command from.`;

interface Call {
  method: string;
  path: string;
  body?: Record<string, unknown>;
}

/** Runs one command; returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      name: { type: 'string' },
      plan: { type: 'string' },
      'owner-email': { type: 'string' },
      language: { type: 'string' },
      hostname: { type: 'string' },
      status: { type: 'string' },
      credits: { type: 'string' },
      scope: { type: 'string' },
      agent: { type: 'string' },
      advance: { type: 'string' },
      now: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      workspace: { type: 'string' },
      email: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [area, ...rest] = positionals;
  if (area !== 'admin' || values.help) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const call = callFor(rest, values);
  if (!call) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const base = (values.url ?? config.publicUrl).replace(/\/+$/, '');
  const tokenFile = path.join(config.dataDir, ADMIN_TOKEN_FILE);
  const token = config.adminToken ?? (await readFile(tokenFile, 'utf8').catch(() => '')).trim();
  if (!token) {
    console.error(missingTokenMessage(tokenFile, base));
    return 2;
  }
  const response = await fetch(`${base}/admin/v1${call.path}`, {
    method: call.method,
    headers: { authorization: `Bearer ${token}`, ...(call.body ? { 'content-type': 'application/json' } : {}) },
    body: call.body ? JSON.stringify(call.body) : undefined,
  }).catch((error: Error) => {
    console.error(`Could not reach Parley at ${base} (${WHERE_IT_CALLS}): ${error.message}`);
    return undefined;
  });
  if (!response) return 1;
  console.log(JSON.stringify(await response.json(), null, 2));
  if (response.status === 401) {
    const source = config.adminToken ? 'PARLEY_ADMIN_TOKEN' : tokenFile;
    console.error(`The service at ${base} refused the operator token from ${source}: do --url and PARLEY_DATA_DIR point at the same service?`);
  }
  return response.ok ? 0 : 1;
}

const WHERE_IT_CALLS = '--url decides, else PARLEY_PUBLIC_URL, else http://localhost:$PORT';

/** Says where the token was looked for, and what decides those places, so the fix is plain. */
function missingTokenMessage(tokenFile: string, base: string): string {
  return [
    'No operator token found.',
    `  It is read from PARLEY_ADMIN_TOKEN (not set), else from ${tokenFile} (missing or empty).`,
    `  That file is in the data directory, which PARLEY_DATA_DIR decides (default ./data under the folder you run from):`,
    `  run from the folder the service was started in, set PARLEY_DATA_DIR to its data directory, or set PARLEY_ADMIN_TOKEN.`,
    `  The service called would be ${base} (${WHERE_IT_CALLS}).`,
  ].join('\n');
}

type Values = Record<string, string | boolean | undefined>;

function callFor([resource, verb, ...ids]: string[], values: Values): Call | undefined {
  const defined = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  const workspaceFields = defined({ name: values.name, plan: values.plan, ownerEmail: values['owner-email'], language: values.language, hostname: values.hostname, status: values.status });
  switch (`${resource} ${verb ?? ''}`.trim()) {
    case 'workspaces list':
      return { method: 'GET', path: `/workspaces${queryString({ limit: values.limit, cursor: values.cursor })}` };
    case 'workspaces create':
      return { method: 'POST', path: '/workspaces', body: workspaceFields };
    case 'workspaces get':
      return ids[0] ? { method: 'GET', path: `/workspaces/${ids[0]}` } : undefined;
    case 'workspaces update':
      return ids[0] ? { method: 'PATCH', path: `/workspaces/${ids[0]}`, body: workspaceFields } : undefined;
    case 'credit-packs add':
      return ids[0] ? { method: 'POST', path: `/workspaces/${ids[0]}/credit-packs`, body: { credits: Number(values.credits) } } : undefined;
    case 'keys list':
      return ids[0] ? { method: 'GET', path: `/workspaces/${ids[0]}/keys` } : undefined;
    case 'keys create':
      return ids[0] ? { method: 'POST', path: `/workspaces/${ids[0]}/keys`, body: defined({ name: values.name, scope: values.scope, agentId: values.agent }) } : undefined;
    case 'keys revoke':
      return ids[1] ? { method: 'DELETE', path: `/workspaces/${ids[0]}/keys/${ids[1]}` } : undefined;
  }
  // Commands whose second word is an id, or that have none.
  if (resource === 'audit' && verb) return { method: 'GET', path: `/workspaces/${verb}/audit` };
  if (resource === 'sign-in-link' && !verb && typeof values.workspace === 'string') {
    return { method: 'POST', path: `/workspaces/${values.workspace}/sign-in-links`, body: defined({ email: values.email }) };
  }
  if (resource === 'outbox' && !verb) return { method: 'GET', path: '/outbox' };
  if (resource === 'clock' && !verb) {
    if (values.advance !== undefined) return { method: 'POST', path: '/clock', body: { advanceSeconds: Number(values.advance) } };
    if (values.now !== undefined) return { method: 'POST', path: '/clock', body: { now: values.now } };
    return { method: 'GET', path: '/clock' };
  }
  return undefined;
}

function queryString(parameters: Record<string, string | boolean | undefined>): string {
  const defined = Object.entries(parameters).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return defined.length === 0 ? '' : `?${new URLSearchParams(defined)}`;
}
