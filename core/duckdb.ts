/**
 * @duckdb/node-api, loaded with require: Node's ESM import of this CommonJS package lexes each of its ~90 files for
 * named exports, ≈0.3 CPU-s at every start of the CLI (measured: 0.66 vs 0.37 CPU-s a process); require skips it.
 * Its allocator is told first to give freed memory back within 10 ms, from a background thread.
 */
import { createRequire } from 'node:module';

/**
 * DuckDB's own jemalloc keeps freed pages and returns them only on later allocations: reconcile at 10M held 1.0–1.4 GiB
 * beyond DuckDB's memory limit. Purged in the background after 10 ms, its peak RSS was 3,866 MiB against 4,317 and
 * 4,408 MiB, at the same time (111.6 against 109.8–113.2 s); at once (0 ms), 3,354 MiB but 10 % slower. Read once,
 * when DuckDB loads; a DUCKDB_JE_MALLOC_CONF the user set wins.
 */
process.env.DUCKDB_JE_MALLOC_CONF ??= 'background_thread:true,dirty_decay_ms:10,muzzy_decay_ms:0';

export const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
