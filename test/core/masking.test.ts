/**
 * Item 3 of issue 8: one masking rule, in text and in SQL alike — a PIN longer than 4 characters shows its
 * last 4 behind the mask, one of 4 characters or fewer is masked entirely — and every user of it agrees.
 */
import { describe, expect, it } from 'vitest';
import {
  cellMask,
  maskedKeySql,
  maskedRawRecordSql,
  maskPin,
  maskPinLast4,
  maskPinSql,
  textMask,
} from '../../core/masking.js';
import { Warehouse } from '../../core/warehouse.js';
import { redact } from '../../core/secret-redaction.js';

const pins = ['ABCD-EFGH-1234', '12345', '1234', '123', 'X', ''];

describe('the masking rule', () => {
  it('hides a PIN of 4 characters or fewer entirely, in text, in errors and in SQL alike', async () => {
    expect(pins.map((pin) => maskPin(pin))).toEqual(['****1234', '****2345', '****', '****', '****', '****']);
    expect(maskPin('1234', cellMask)).toBe('••••');
    expect([maskPinLast4('1000'), maskPinLast4('123'), maskPinLast4('1000', cellMask)]).toEqual([
      '****1000',
      '****',
      '••••1000',
    ]);
    // The client's errors quote upstream bodies: a short PIN is not printed whole there either.
    expect(redact('{"key":"1234","status":"ok"}')).toBe('{"key":"****","status":"ok"}');
    expect(redact('{"key":"ABCD-EFGH-1234"}')).toBe('{"key":"****1234"}');

    const warehouse = await Warehouse.open(':memory:', { applySchema: false });
    try {
      for (const pin of pins) {
        const row = await warehouse.one<{ text: string; cell: string; last4: string; raw: string; rawText: string }>(
          `SELECT ${maskPinSql('$1')} AS text, ${maskedKeySql('$1', 'key')} AS cell,
                  ${maskedKeySql(`CASE WHEN length($1) > 4 THEN right($1, 4) END`, 'last4')} AS last4,
                  ${maskedRawRecordSql(`'{"key": "' || $1 || '", "n": 1}'`)} AS raw,
                  ${maskedRawRecordSql(`'{"key": "' || $1 || '", "n": 1}'`, textMask)} AS rawText`,
          [pin],
        );
        expect(row!.text, pin).toBe(maskPin(pin));
        expect(row!.cell, pin).toBe(maskPin(pin, cellMask));
        if (pin.length > 4) expect(row!.last4, pin).toBe(maskPin(pin, cellMask));
        // The stored last 4 (key_last4) shows as the whole PIN would: a 4-character tail is not hidden whole.
        if (pin.length > 4) expect(maskPinLast4(pin.slice(-4)), pin).toBe(maskPin(pin));
        expect(row!.raw, pin).toBe(`{"key": "${maskPin(pin, cellMask)}", "n": 1}`);
        expect(row!.rawText, pin).toBe(`{"key": "${maskPin(pin)}", "n": 1}`);
      }
    } finally {
      warehouse.close();
    }
  });
});
