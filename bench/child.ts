/** Runs one benchmark module in this (fresh) process and prints its result with the process's peak RSS. */
import type { BenchModule } from './harness.js';
import { peakRssMiB } from './harness.js';

const name = process.argv[2];
if (!name) throw new Error('usage: node dist/bench/child.js <bench-file-name>');
const module = (await import(`./${name}.js`)) as BenchModule;
const result = await module.run();
// `section`: the BENCHMARKS.md section a run replaces (a bench run at another scale keeps its own).
const section = module.section ?? name;
process.stdout.write(
  `\n@@BENCH ` +
    `${JSON.stringify({ name: module.name, file: section, peakRssMiB: Math.round(peakRssMiB()), ...result })}\n`,
);
