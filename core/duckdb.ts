/**
 * @duckdb/node-api, loaded with require: Node's ESM import of this CommonJS package lexes each of its ~90 files for
 * named exports, ≈0.3 CPU-s at every start of the CLI (measured: 0.66 vs 0.37 CPU-s a process); require skips it.
 */
import { createRequire } from 'node:module';

export const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
