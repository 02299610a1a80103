/**
 * A newcomer's first commands on a machine whose own Node is older than 24:
 * npm runs on that Node, while the service runs on the Node 24 the `node`
 * package brings. npm checks engines against its own Node, so without care
 * every install and every `npx parley admin` printed "Unsupported engine"
 * warnings a newcomer reads as failure (package.json's devEngines, .npmrc).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const exec = promisify(execFile);

/** The PATH of a shell outside npm: the machine's own node and npm, not node_modules/.bin. */
const SYSTEM_PATH = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((dir) => dir && !dir.includes('node_modules'))
  .join(path.delimiter);

async function systemRun(command: string, args: string[], cwd = ROOT): Promise<{ code: number; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: SYSTEM_PATH };
  for (const name of Object.keys(env)) if (/^(npm_|NODE_TEST|NODE_OPTIONS)/i.test(name)) delete env[name];
  try {
    const { stdout, stderr } = await exec(command, args, { cwd, env, timeout: 240_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error: any) {
    return { code: typeof error.code === 'number' ? error.code : 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}${error.message}` };
  }
}

const systemNode = SYSTEM_PATH.split(path.delimiter).map((dir) => path.join(dir, 'node')).find((file) => existsSync(file));
const systemMajor = systemNode ? Number((await systemRun(systemNode, ['--version'])).output.trim().replace(/^v/, '').split('.')[0]) : undefined;
const skip = systemMajor === undefined ? 'no Node of its own on this machine' : systemMajor >= 24 && `this machine's own Node is ${systemMajor}: nothing to warn about`;

describe("npm on a machine whose own Node is older than 24 (the project brings Node 24)", { skip }, () => {
  test('npx parley admin --help prints the usage and no npm warning', async () => {
    const { code, output } = await systemRun('npx', ['parley', 'admin', '--help']);
    assert.equal(code, 0, output);
    assert.match(output, /^Usage: npx parley admin/m);
    assert.doesNotMatch(output, /npm warn|EBADENGINE|Unsupported engine/i, output);
  });

  test('npm install (dry run from the lockfile) prints no warning', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'parley-install-'));
    try {
      for (const file of ['package.json', 'package-lock.json', '.npmrc']) await copyFile(path.join(ROOT, file), path.join(dir, file));
      const { code, output } = await systemRun('npm', ['install', '--dry-run', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], dir);
      assert.equal(code, 0, output);
      assert.match(output, /added \d+ packages/);
      assert.doesNotMatch(output, /npm warn|EBADENGINE|Unsupported engine/i, output);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('errors still show: an unknown command is npm error, exit non-zero', async () => {
    const { code, output } = await systemRun('npm', ['run', 'no-such-script']);
    assert.notEqual(code, 0);
    assert.match(output, /npm error/);
  });

  test('npm scripts and npx still run on the Node 24 the node package brings', async () => {
    const { code, output } = await systemRun('npx', ['node', '--version']);
    assert.equal(code, 0, output);
    assert.match(output.trim(), /^v24\./);
  });
});
