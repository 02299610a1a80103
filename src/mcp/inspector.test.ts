import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startService, type SeededWorkspace, type Service } from '../../test/support/harness.ts';
import { TOOLS } from './tools.ts';

const run = promisify(execFile);
const INSPECTOR = path.resolve('node_modules/.bin/inspector');

/** The MCP Inspector's command-line mode, as docs/mcp.md tells people to run it. */
function inspector(service: Service, key: string, ...args: string[]) {
  return run(INSPECTOR, ['--cli', `${service.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args], { timeout: 120_000 });
}

describe('the MCP Inspector (CLI mode) against the running service', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'agency' });
  });
  after(async () => service?.close());

  test('tools/list lists the tools the key may call, every input and output schema without a warning', async () => {
    const { stdout, stderr } = await inspector(service, ws.keys.manage, '--method', 'tools/list');
    // The Inspector prints "Schema portability: 0 errors, N warnings across M tools" when it finds any.
    assert.equal(stderr.trim(), '', stderr);
    const listed = JSON.parse(stdout) as { tools: Array<{ name: string }> };
    assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), TOOLS.map((tool) => tool.name).sort());
  });

  test('tools/call runs a tool', async () => {
    const { stdout } = await inspector(service, ws.keys.read, '--method', 'tools/call', '--tool-name', 'get_workspace');
    const result = JSON.parse(stdout);
    assert.equal(result.structuredContent.data.key.scope, 'read');
  });
});
