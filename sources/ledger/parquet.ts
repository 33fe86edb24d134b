/**
 * Parquet ledgers, read by DuckDB's `read_parquet` and streamed chunk by chunk. Typed columns keep their
 * meaning: DECIMAL and integer columns arrive as exact decimal text (never a float), DOUBLE as a number
 * (rounded to 15 significant digits like a spreadsheet value), dates and timestamps as ISO text (a
 * TIMESTAMPTZ with its offset). `line` is the row's number in the file (1-based). Give it a connection
 * of its own: the import appends on the main one while this result streams.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { JobError } from '../../core/errors.js';
import { describeStart, fileEnds } from './signature.js';
import { ExactNumber, type CellValue, type ProgressCallback, type SourceEvent } from './types.js';
import { sqlIdentifier, sqlString } from '../../core/sql.js';

const exportAgain = 'Export the ledger again as Parquet, or pass --format if the file is CSV, XLSX or JSON.';

/** Rows come in file order: DuckDB preserves insertion order of a scan by default. */
const exactTypes =
  /^(DECIMAL|NUMERIC|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)/;
const floatTypes = /^(DOUBLE|FLOAT|REAL)/;

export async function* readParquet(
  file: string,
  connection: DuckDBConnection,
  onProgress?: ProgressCallback,
): AsyncGenerator<SourceEvent> {
  checkParquetSignature(file);
  const source = `read_parquet(${sqlString(file)}, file_row_number = true)`;
  let described: { column_name: string; column_type: string }[];
  let total: number;
  try {
    described = (
      await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`)
    ).getRowObjectsJson() as typeof described;
    total = Number(
      (
        await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet(${sqlString(file)})`)
      ).getRowsJson()[0]?.[0] ?? 0,
    );
  } catch (error) {
    // DuckDB's message quotes our SQL ("LINE 1: DESCRIBE …"): keep only its first line.
    const reason = (error as Error).message.split('\n')[0];
    throw new JobError(
      `${file} could not be read as a Parquet file: it looks damaged or truncated (${reason}).`,
      exportAgain,
      { cause: error },
    );
  }
  const columns = described.filter((c) => c.column_name !== 'file_row_number');
  const selectList = columns.map((c) =>
    floatTypes.test(c.column_type)
      ? `CAST(${sqlIdentifier(c.column_name)} AS DOUBLE)`
      : `CAST(${sqlIdentifier(c.column_name)} AS VARCHAR)`,
  );
  const exact = columns.map((c) => exactTypes.test(c.column_type));
  yield { kind: 'header', names: columns.map((c) => c.column_name) };
  const result = await connection.stream(`SELECT file_row_number + 1, ${selectList.join(', ')} FROM ${source}`);
  let done = 0;
  for await (const rows of result.yieldRowsJs()) {
    for (const row of rows) {
      const values: CellValue[] = row
        .slice(1)
        .map((v, i) =>
          v === null || v === undefined ? null : exact[i] ? new ExactNumber(String(v)) : (v as string | number),
        );
      const raw = JSON.stringify(Object.fromEntries(columns.map((c, i) => [c.column_name, row[i + 1] ?? null])));
      yield { kind: 'values', line: Number(row[0]), values, raw };
    }
    done += rows.length;
    onProgress?.(done, total);
  }
}

/** A Parquet file starts and ends with the 4 bytes "PAR1". */
function checkParquetSignature(file: string): void {
  const { head, tail } = fileEnds(file, 4);
  if (head.toString('latin1') === 'PAR1' && tail.toString('latin1') === 'PAR1') return;
  const why =
    head.toString('latin1') === 'PAR1'
      ? 'it does not end with the Parquet mark "PAR1": the file is truncated'
      : `a Parquet file starts with "PAR1"; ${describeStart(file)}`;
  throw new JobError(`${file} is not a Parquet file (${why}).`, exportAgain);
}
