/**
 * Writes the generated ledger's lines as CSV (the canonical ledger headers), a block at a time: a ledger of
 * millions of lines is longer than a string may be. Money is written exact, some lines as `10.3` for `10.30`.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { ZonedClock } from '../../core/zoned-time.js';

/** A ledger line as the generator holds it: money in ten-thousandths, exact. */
export interface Line {
  reference: string;
  productId: number;
  paidAtMs: number;
  /** Money in ten-thousandths, exact. */
  price: number;
  cost: number;
  currency: string;
  country: string;
  status: 'paid' | 'refunded' | 'canceled';
  /** Written like `10.3` instead of `10.30`. */
  shortDecimals: boolean;
}

export function writeCsv(file: string, lines: Line[], clock: ZonedClock): void {
  const money = (v: number, short: boolean) => {
    const text = (v / 10_000).toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
    return short ? text : (v / 10_000).toFixed(Math.max(2, text.split('.')[1]?.length ?? 0));
  };
  const fd = openSync(file, 'w');
  try {
    writeSync(
      fd,
      'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,order_status\n',
    );
    const blockLines = 50_000;
    for (let start = 0; start < lines.length; start += blockLines) {
      const block = lines
        .slice(start, start + blockLines)
        .map((l) =>
          [
            `"${l.reference.replace(/"/g, '""')}"`,
            l.productId,
            clock.isoLocal(l.paidAtMs).replace('T', ' '),
            money(l.price, l.shortDecimals),
            money(l.cost, l.shortDecimals),
            l.currency,
            l.country,
            l.status,
          ].join(','),
        );
      writeSync(fd, `${block.join('\n')}\n`);
    }
  } finally {
    closeSync(fd);
  }
}
