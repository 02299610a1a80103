#!/usr/bin/env node
// `npx parley admin …`: a client of the operator API. Plain JavaScript so that
// an old Node gets a clear message instead of a syntax error.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`parley needs Node 24 or later (this is ${process.version}). Run it through npm (npx parley …), which uses the Node 24 that npm install put in node_modules/.bin.`);
  process.exit(1);
}
const { runCli } = await import('../src/cli/admin.ts');
process.exitCode = await runCli(process.argv.slice(2));
