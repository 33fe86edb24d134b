/**
 * `npm run bench [-- [--hogs N] name ...]`: runs every benchmark under bench/ in its own child process (so peak RSS
 * is the benchmark's own), prints the results, and rewrites docs/BENCHMARKS.md with them and the machine's facts.
 * `--hogs N` runs N busy loops beside them, as a shared machine would (issue 33); such a result is recorded in its
 * own section (`<name>@hogsN`), beside the quiet one.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import duckdb from '@duckdb/node-api';
import type { BenchResult } from './harness.js';

interface ChildResult extends BenchResult {
  name: string;
  file: string;
  peakRssMiB: number;
  /** Busy loops that ran beside it (`--hogs`). */
  hogs?: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
// The harness and the helpers benchmarks share; every other bench/*.js is a benchmark (it exports `run`).
const infrastructure = new Set(['run', 'child', 'harness', 'month-fixture', 'simulator-process']);

// `npm run bench -- --record FILE…`: records results a bench child printed elsewhere (e.g. the 10M month-end,
// run once in its own checkout: `node dist/bench/child.js month-end > FILE`) instead of running anything.
if (process.argv[2] === '--record') {
  const recorded = process.argv.slice(3).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('@@BENCH '))
      .map((line) => JSON.parse(line.slice('@@BENCH '.length)) as ChildResult),
  );
  if (recorded.length === 0) throw new Error(`no @@BENCH line in ${process.argv.slice(3).join(', ')}`);
  for (const result of recorded) process.stderr.write(`${formatResult(result)}\n`);
  writeReport(recorded);
  process.exit(0);
}

const { hogs, wanted } = parseArguments(process.argv.slice(2));
const busy = startHogs(hogs);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.js') && !infrastructure.has(f.slice(0, -3)))
  .map((f) => f.slice(0, -3))
  .filter((f) => wanted.length === 0 || wanted.includes(f))
  .sort();

const results: ChildResult[] = [];
for (const file of files) {
  process.stderr.write(`bench ${file} ...\n`);
  const child = spawnSync(process.execPath, [path.join(here, 'child.js'), file], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = child.stdout.split('\n').find((l) => l.startsWith('@@BENCH '));
  if (child.status !== 0 || !line) {
    process.stderr.write(`bench ${file} failed (exit ${child.status})\n${child.stdout.slice(-4000)}\n`);
    process.exitCode = 1;
    continue;
  }
  const result = { ...(JSON.parse(line.slice('@@BENCH '.length)) as ChildResult), ...(hogs > 0 && { hogs }) };
  results.push(result);
  process.stderr.write(`${formatResult(result)}\n`);
}

for (const hog of busy) hog.kill('SIGKILL');
if (results.length > 0) writeReport(results);

function parseArguments(args: string[]): { hogs: number; wanted: string[] } {
  const at = args.indexOf('--hogs');
  if (at < 0) return { hogs: 0, wanted: args };
  const hogs = Number(args[at + 1]);
  if (!Number.isInteger(hogs) || hogs < 1)
    throw new Error(`--hogs needs a whole number of busy loops ≥ 1, got ${args[at + 1]}`);
  return { hogs, wanted: args.filter((_, i) => i !== at && i !== at + 1) };
}

/** N processes each spinning one core until killed (also when this process ends first). */
function startHogs(count: number): ChildProcess[] {
  const hogs = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  process.on('exit', () => {
    for (const hog of hogs) hog.kill('SIGKILL');
  });
  return hogs;
}

function formatResult(r: ChildResult): string {
  const metrics = Object.entries(r.metrics)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const targets = r.targets.map((t) => `${t.ok ? 'PASS' : 'FAIL'} ${t.label} (${t.measured})`).join('\n  ');
  return `${r.name}: ${metrics} peak_rss_MiB=${r.peakRssMiB}\n  ${targets}`;
}

function machineFacts(): string[] {
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  return [
    `- date: ${new Date().toISOString()}`,
    `- CPU: ${cpu}, ${os.cpus().length} cores; memory ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- OS: ${os.type()} ${os.release()} (${os.arch()})`,
    `- Node ${process.version}; DuckDB ${duckdb.version()}`,
  ];
}

/** Keeps the sections of benchmarks not run this time; replaces those that were. */
function writeReport(fresh: ChildResult[]): void {
  const file = path.join(root, 'docs', 'BENCHMARKS.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const sections = new Map<string, string>();
  // Prose written above the first section (e.g. an issue's summary) is kept as it is.
  const header =
    '# Benchmarks\n\nMeasured with `npm run bench` (each benchmark in its own process; ' +
    "peak RSS is that process's maximum resident set).\n" +
    'Re-run one with `npm run bench -- <file>`; its section below is replaced, the others kept.\n\n';
  const firstSection = previous.indexOf('<!-- bench:');
  const prose = previous.startsWith(header) && firstSection > 0 ? previous.slice(header.length, firstSection) : '';
  for (const match of previous.matchAll(/<!-- bench:(\S+) -->\n([\s\S]*?)<!-- \/bench -->/g))
    sections.set(match[1]!, match[2]!);
  for (const r of fresh) {
    const loaded = r.hogs ? `@hogs${r.hogs}` : '';
    const rows = Object.entries(r.metrics).map(([k, v]) => `| ${k} | ${v} |`);
    const targets = r.targets.map((t) => `| ${t.ok ? '✅' : '❌'} ${t.label} | ${t.measured} |`);
    sections.set(
      `${r.file}${loaded}`,
      [
        `## ${r.name}${r.hogs ? ` — beside ${r.hogs} CPU hogs` : ''}`,
        '',
        ...machineFacts(),
        ...(r.hogs ? [`- load: ${r.hogs} busy loops (\`npm run bench -- --hogs ${r.hogs}\`) ran beside it`] : []),
        '',
        '| target | measured |',
        '|---|---|',
        ...targets,
        '',
        '| metric | value |',
        '|---|---|',
        ...rows,
        `| peak RSS (MiB, whole process) | ${r.peakRssMiB} |`,
        '',
        r.notes ?? '',
        '',
      ].join('\n'),
    );
  }
  const body = [...sections.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, text]) => `<!-- bench:${name} -->\n${text}<!-- /bench -->`)
    .join('\n\n');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${header}${prose}${body}\n`);
}
