/**
 * @duckdb/node-api, loaded with require: Node's ESM import of this CommonJS package lexes each of its ~90 files for
 * named exports, ≈0.3 CPU-s at every start of the CLI (measured: 0.66 vs 0.37 CPU-s a process); require skips it.
 * Its allocator is told first to give freed memory back within 10 ms, from a background thread.
 */
import { createRequire } from 'node:module';

/**
 * DuckDB's own jemalloc keeps freed pages: reconcile at 10M held 1.0–1.4 GiB beyond DuckDB's memory limit. Told to
 * return them after 10 ms, it peaked at 3,866 against 4,317–4,408 MiB in the same time (at once: 3,354 MiB, 10 %
 * slower). But DuckDB stops jemalloc's background thread when an instance opens with `allocator_background_threads`
 * false, its default, and whenever another instance closes: pages went back only when DuckDB next allocated. Every
 * instance now asks for the thread (allocatorOptions), and a warehouse again after a closing
 * (resumeAllocatorPurging): reconcile alone at 10M then peaked at 3,433/3,468 against 3,874/4,138 MiB
 * (73.6 against 72.6 s). Read once, when DuckDB loads; a DUCKDB_JE_MALLOC_CONF the user set wins.
 */
process.env.DUCKDB_JE_MALLOC_CONF ??= 'background_thread:true,dirty_decay_ms:10,muzzy_decay_ms:0';

const purging = String(/\bbackground_thread:true\b/.test(process.env.DUCKDB_JE_MALLOC_CONF));
/** What every instance pinrecon opens adds to its configuration: DuckDB applies it to the whole process. */
export const allocatorOptions: Record<string, string> = { allocator_background_threads: purging };

/** Asks for the background thread again, in a warehouse, after another instance of the process closed. */
export const resumeAllocatorPurging = `SET allocator_background_threads = ${purging}`;

export const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
