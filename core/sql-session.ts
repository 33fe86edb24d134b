/**
 * What a module needs of an open database to run SQL on it: the queries, a transaction and DuckDB's connection
 * (for an appender). The warehouse (core/warehouse.ts) is one; modules it runs — the schema migrations — take this
 * instead of the warehouse, so no import goes back to it (issue 27: no cycle).
 */
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;
/** Rows as JSON-safe values: DECIMAL and BIGINT arrive as exact strings, timestamps as ISO-like text. */
export type Row = Record<string, unknown>;

export interface SqlSession {
  readonly path: string;
  readonly connection: DuckDBConnection;
  run(sql: string, params?: Params): Promise<void>;
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]>;
  one<T extends Row = Row>(sql: string, params?: Params): Promise<T | undefined>;
  /** Runs `work` inside BEGIN/COMMIT; rolls back and rethrows on any error. Not re-entrant. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * A one-time change of a database made by an older pinrecon, run when the schema is applied: `needed` is asked
 * before `sql/schema/` runs. A migration with `before` runs it, the schema and its `after` in one transaction (all or
 * nothing); one without runs `after` once the schema has run (e.g. to fill columns the schema just added).
 */
export interface SchemaMigration {
  name: string;
  needed(db: SqlSession): Promise<boolean>;
  /** Said before it starts, for one that may take a while on a big file. */
  notice?: (db: SqlSession) => string;
  before?(db: SqlSession): Promise<void>;
  after?(db: SqlSession): Promise<unknown>;
}
