/** npm run bench: every area's benchmark in turn (or those named: npm run bench -- foundation). */
import { readdirSync } from 'node:fs';

const only = process.argv.slice(2);
const benches = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace('.bench.ts', ''))
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();

for (const name of benches) {
  console.log(`\n# ${name}`);
  const module = (await import(`./${name}.bench.ts`)) as { run(): Promise<void> };
  await module.run();
}
