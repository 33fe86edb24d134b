/**
 * Ledger files for the bench and the ledger tests: the Brazilian partner's export dialect (";", decimal
 * comma with thousands dots, dd/MM/yyyy HH:mm:ss, Latin-1, Portuguese headers) as `ledger` settings, and a
 * streaming writer for ledger CSVs of any size (a million lines without holding them in memory).
 */
import { createWriteStream } from 'node:fs';

/** The Brazilian export's headers, by the canonical column each one holds (in the file's order). */
export const brazilianColumns = {
  partner_reference: 'Pedido',
  product_id: 'Produto',
  paid_at: 'Pago em',
  sales_price: 'Valor venda',
  expected_cost: 'Custo esperado',
  currency_code: 'Moeda',
  country_code: 'País',
  order_status: 'Situação',
};

/** The config's `ledger` settings that read the Brazilian export. */
export const brazilianLedger = {
  delimiter: ';',
  decimalSeparator: ',',
  encoding: 'latin1',
  dateFormat: 'dd/MM/yyyy HH:mm:ss',
  columns: brazilianColumns,
};

export interface LedgerCsvOptions {
  /** The header line, without its line break. */
  header: string;
  /** How many lines follow the header; line `i` (1-based) is `line(i)`, without its line break. */
  lines: number;
  line: (i: number) => string;
  /** Default `\n`. */
  lineBreak?: string;
  /** Default utf-8. */
  encoding?: 'utf-8' | 'latin1';
}

/** Writes a ledger CSV line by line, in batches, waiting for the disk when it falls behind. */
export async function writeLedgerCsv(file: string, options: LedgerCsvOptions): Promise<void> {
  const lineBreak = options.lineBreak ?? '\n';
  const out = createWriteStream(file);
  // A write error rejects the wait for 'drain' (which would never come) and the final end().
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  const write = (text: string) =>
    out.write(Buffer.from(text, options.encoding ?? 'utf-8'))
      ? Promise.resolve()
      : Promise.race([failed, new Promise<void>((resolve) => out.once('drain', () => resolve()))]);
  let batch = `${options.header}${lineBreak}`;
  for (let i = 1; i <= options.lines; i++) {
    batch += `${options.line(i)}${lineBreak}`;
    if (batch.length > 1 << 20) {
      await write(batch);
      batch = '';
    }
  }
  await write(batch);
  await Promise.race([
    failed,
    new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve()))),
  ]);
}
