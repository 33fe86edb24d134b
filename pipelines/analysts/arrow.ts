/**
 * DuckDB results as Apache Arrow (`query --format arrow`, `export --format arrow`): chunks become record
 * batches one after another (never the whole result in memory), written as an IPC stream or file. DECIMAL stays
 * exact, TIMESTAMPTZ is a zoned microsecond Timestamp, DATE is DateDay; types readers handle unevenly go out as
 * text, nested values as JSON. PIN columns carry only their last 4 characters.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DuckDBDataChunk, DuckDBDecimalType, DuckDBResult, DuckDBType } from '@duckdb/node-api';
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  makeData,
  RecordBatch,
  RecordBatchFileWriter,
  Schema,
  Struct,
  Table,
  tableToIPC,
  TimeMicrosecond,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  type Data,
  type DataType,
} from 'apache-arrow';
import { duckdb } from '../../core/duckdb.js';
import type { Warehouse } from '../../core/warehouse.js';
import { maskNested, maskValue, queryForMasking } from './query.js';

/** Rows per record batch: DuckDB's 2,048-row chunks gathered, so readers get few, large batches. */
const { DuckDBTypeId, JsonDuckDBValueConverter } = duckdb;

export const arrowBatchRows = 65_536;

/** A column's Arrow field and how to turn its slices of DuckDB chunks into one Arrow column. */
interface ColumnConverter {
  field: Field;
  convert(chunks: DuckDBDataChunk[], column: number, length: number): Data;
}

/** An Arrow schema and its record batches, read from a DuckDB result as they are pulled. */
export interface ArrowResult {
  schema: Schema;
  batches: AsyncGenerator<RecordBatch>;
}

/**
 * Converts a streaming DuckDB result: `pinColumns` flags the columns to mask whole (text of their last
 * 4 characters), `timezone` is the session's zone TIMESTAMPTZ columns carry. Always at least one batch
 * (an empty one for no rows), so a file's schema reaches the reader.
 */
export function arrowResult(result: DuckDBResult, timezone: string, pinColumns: boolean[] = []): ArrowResult {
  const names = result.deduplicatedColumnNames();
  const converters = result
    .columnTypes()
    .map((type, i) => columnConverter(names[i]!, type, timezone, pinColumns[i] ?? false));
  const schema = new Schema(converters.map((c) => c.field));
  const batch = (chunks: DuckDBDataChunk[], length: number) =>
    new RecordBatch(
      schema,
      makeData({
        type: new Struct(schema.fields),
        length,
        nullCount: 0,
        children: converters.map((c, i) => c.convert(chunks, i, length)),
      }),
    );
  const batches = async function* (): AsyncGenerator<RecordBatch> {
    let pending: DuckDBDataChunk[] = [];
    let rows = 0;
    let any = false;
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      pending.push(chunk);
      rows += chunk.rowCount;
      if (rows >= arrowBatchRows) {
        yield batch(pending, rows);
        [pending, rows, any] = [[], 0, true];
      }
    }
    if (rows > 0 || !any) yield batch(pending, rows);
  };
  return { schema, batches: batches() };
}

/**
 * Writes record batches as an Arrow IPC stream (`query --format arrow` to stdout), one batch at a time:
 * the next batch is not read while the destination is full. (apache-arrow's own node writer accepts
 * every batch at once and queues the bytes, so a slow reader would let the whole result pile up.) Each
 * batch is serialized on its own; the stream is the schema message once, then each batch's messages,
 * then the end-of-stream marker, as the IPC format defines it.
 */
export async function writeArrowStream(
  schema: Schema,
  batches: AsyncIterable<RecordBatch>,
  destination: Writable,
): Promise<void> {
  const write = async (bytes: Uint8Array) => {
    if (!destination.write(bytes)) await once(destination, 'drain');
  };
  // An IPC stream of no batches is the schema message followed by the 8-byte end-of-stream marker.
  const schemaOnly = tableToIPC(new Table(schema), 'stream');
  const schemaBytes = schemaOnly.length - endOfStream.length;
  await write(schemaOnly.subarray(0, schemaBytes));
  for await (const batch of batches) {
    const whole = tableToIPC(new Table([batch]), 'stream');
    await write(whole.subarray(schemaBytes, whole.length - endOfStream.length));
  }
  await write(schemaOnly.subarray(schemaBytes));
}

/** The IPC stream's end: a continuation marker and a zero length. */
const endOfStream = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

/** Writes record batches as an Arrow IPC file (random access, `.arrow`); returns the rows written. */
export async function writeArrowFile(batches: AsyncIterable<RecordBatch>, file: string): Promise<number> {
  let rows = 0;
  const counted = async function* () {
    for await (const batch of batches) {
      rows += batch.numRows;
      yield batch;
    }
  };
  await pipeline(Readable.from(counted()), RecordBatchFileWriter.throughNode(), createWriteStream(file));
  return rows;
}

function columnConverter(name: string, type: DuckDBType, timezone: string, pin: boolean): ColumnConverter {
  const field = (arrowType: DataType) => new Field(name, arrowType, true);
  if (pin) return { field: field(new Utf8()), convert: textColumn((value) => maskValue(value) as string | null) };
  const fixed = (
    arrowType: DataType,
    ArrayType: TypedArrayType,
    read: (item: never) => number | bigint = (item) => item,
  ) => ({
    field: field(arrowType),
    convert: fixedWidthColumn(arrowType, ArrayType, read),
  });
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return { field: field(new Bool()), convert: booleanColumn };
    case DuckDBTypeId.TINYINT:
      return fixed(new Int8(), Int8Array);
    case DuckDBTypeId.SMALLINT:
      return fixed(new Int16(), Int16Array);
    case DuckDBTypeId.INTEGER:
      return fixed(new Int32(), Int32Array);
    case DuckDBTypeId.BIGINT:
      return fixed(new Int64(), BigInt64Array);
    case DuckDBTypeId.UTINYINT:
      return fixed(new Uint8(), Uint8Array);
    case DuckDBTypeId.USMALLINT:
      return fixed(new Uint16(), Uint16Array);
    case DuckDBTypeId.UINTEGER:
      return fixed(new Uint32(), Uint32Array);
    case DuckDBTypeId.UBIGINT:
      return fixed(new Uint64(), BigUint64Array);
    case DuckDBTypeId.FLOAT:
      return fixed(new Float32(), Float32Array);
    case DuckDBTypeId.DOUBLE:
      return fixed(new Float64(), Float64Array);
    case DuckDBTypeId.DECIMAL: {
      const { width, scale } = type as DuckDBDecimalType;
      const arrowType = new Decimal(scale, width, 128);
      return { field: field(arrowType), convert: decimalColumn(arrowType, (item: { value: bigint }) => item.value) };
    }
    case DuckDBTypeId.HUGEINT: {
      const arrowType = new Decimal(0, 38, 128);
      return { field: field(arrowType), convert: decimalColumn(arrowType, (item: bigint) => item) };
    }
    case DuckDBTypeId.DATE:
      return fixed(new DateDay(), Int32Array, (item: { days: number }) => item.days);
    case DuckDBTypeId.TIME:
      return fixed(new TimeMicrosecond(), BigInt64Array, (item: { micros: bigint }) => item.micros);
    case DuckDBTypeId.TIMESTAMP:
      return fixed(new TimestampMicrosecond(), BigInt64Array, (item: { micros: bigint }) => item.micros);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return fixed(new TimestampMicrosecond(timezone), BigInt64Array, (item: { micros: bigint }) => item.micros);
    case DuckDBTypeId.TIMESTAMP_S:
      return fixed(new TimestampSecond(), BigInt64Array, (item: { seconds: bigint }) => item.seconds);
    case DuckDBTypeId.TIMESTAMP_MS:
      return fixed(new TimestampMillisecond(), BigInt64Array, (item: { millis: bigint }) => item.millis);
    case DuckDBTypeId.TIMESTAMP_NS:
      return fixed(new TimestampNanosecond(), BigInt64Array, (item: { nanos: bigint }) => item.nanos);
    case DuckDBTypeId.VARCHAR:
      return { field: field(new Utf8()), convert: textColumn((value) => value as string | null) };
    case DuckDBTypeId.BLOB:
      return { field: field(new Binary()), convert: binaryColumn };
    default:
      // Anything else as text: strings as they are, structures as JSON with their PIN fields masked.
      return {
        field: field(new Utf8()),
        convert: textColumn((value) =>
          value === null ? null : typeof value === 'string' ? value : JSON.stringify(maskNested(value)),
        ),
      };
  }
}

type TypedArrayType =
  | Int8ArrayConstructor
  | Int16ArrayConstructor
  | Int32ArrayConstructor
  | BigInt64ArrayConstructor
  | Uint8ArrayConstructor
  | Uint16ArrayConstructor
  | Uint32ArrayConstructor
  | BigUint64ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor;

/** The validity bitmap Arrow keeps per column (bit set = value present), filled as values are read. */
class Validity {
  readonly bitmap: Uint8Array;
  nulls = 0;
  constructor(length: number) {
    this.bitmap = new Uint8Array((length + 7) >> 3);
  }
  set(index: number, present: boolean): void {
    if (present) this.bitmap[index >> 3]! |= 1 << (index & 7);
    else this.nulls++;
  }
  props(): { nullCount: number; nullBitmap?: Uint8Array } {
    return this.nulls === 0 ? { nullCount: 0 } : { nullCount: this.nulls, nullBitmap: this.bitmap };
  }
}

/** Calls `visit` with each item of one column across the chunks, and its row in the batch. */
function eachItem(chunks: DuckDBDataChunk[], column: number, visit: (item: unknown, row: number) => void): void {
  let row = 0;
  for (const chunk of chunks) {
    const vector = chunk.getColumnVector(column);
    for (let i = 0; i < chunk.rowCount; i++) visit(vector.getItem(i), row++);
  }
}

function fixedWidthColumn(type: DataType, ArrayType: TypedArrayType, read: (item: never) => number | bigint) {
  return (chunks: DuckDBDataChunk[], column: number, length: number): Data => {
    const values = new ArrayType(length) as { [index: number]: number | bigint };
    const validity = new Validity(length);
    eachItem(chunks, column, (item, row) => {
      validity.set(row, item !== null);
      if (item !== null) values[row] = read(item as never);
    });
    return makeData({ type, length, data: values, ...validity.props() } as never);
  };
}

/** Arrow's 128-bit decimals: the unscaled value as two little-endian 64-bit words, two's complement. */
function decimalColumn(type: Decimal, unscaled: (item: never) => bigint) {
  return (chunks: DuckDBDataChunk[], column: number, length: number): Data => {
    const words = new BigUint64Array(length * 2);
    const validity = new Validity(length);
    eachItem(chunks, column, (item, row) => {
      validity.set(row, item !== null);
      if (item === null) return;
      const value = unscaled(item as never);
      words[row * 2] = BigInt.asUintN(64, value);
      words[row * 2 + 1] = BigInt.asUintN(64, value >> 64n);
    });
    return makeData({ type, length, data: new Uint32Array(words.buffer), ...validity.props() });
  };
}

function booleanColumn(chunks: DuckDBDataChunk[], column: number, length: number): Data {
  const bits = new Uint8Array((length + 7) >> 3);
  const validity = new Validity(length);
  eachItem(chunks, column, (item, row) => {
    validity.set(row, item !== null);
    if (item === true) bits[row >> 3]! |= 1 << (row & 7);
  });
  return makeData({ type: new Bool(), length, data: bits, ...validity.props() });
}

/** Text from each value's JSON form (what `query`'s other formats print), through `text`. */
function textColumn(text: (json: unknown) => string | null) {
  return (chunks: DuckDBDataChunk[], column: number, length: number): Data => {
    const texts: (string | null)[] = [];
    for (const chunk of chunks)
      for (const value of chunk.convertColumnValues(column, JsonDuckDBValueConverter)) texts.push(text(value));
    return variableWidth(
      new Utf8(),
      texts.map((t) => (t === null ? null : Buffer.from(t, 'utf8'))),
      length,
    );
  };
}

function binaryColumn(chunks: DuckDBDataChunk[], column: number, length: number): Data {
  const values: (Uint8Array | null)[] = [];
  eachItem(chunks, column, (item) => values.push(item === null ? null : (item as { bytes: Uint8Array }).bytes));
  return variableWidth(new Binary(), values, length);
}

/** Utf8 and Binary columns: 32-bit offsets into one buffer of all the values' bytes. */
function variableWidth(type: Utf8 | Binary, values: (Uint8Array | null)[], length: number): Data {
  const offsets = new Int32Array(length + 1);
  const validity = new Validity(length);
  let bytes = 0;
  values.forEach((value, row) => {
    validity.set(row, value !== null);
    bytes += value?.length ?? 0;
    offsets[row + 1] = bytes;
  });
  const data = new Uint8Array(bytes);
  for (const [row, value] of values.entries()) if (value) data.set(value, offsets[row]!);
  return makeData({ type, length, valueOffsets: offsets, data, ...validity.props() } as never);
}

/** `pinrecon query --format arrow`: one reading statement through the read-only session's masking, as Arrow. */
export async function queryArrow(warehouse: Warehouse, sql: string, timezone: string): Promise<ArrowResult> {
  const { pinColumns, result } = await queryForMasking(warehouse, sql);
  return arrowResult(result, timezone, pinColumns);
}
