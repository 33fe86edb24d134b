/**
 * The ledger validator on its own: one record's cells in, a canonical row or every problem of the record
 * out (each naming its column), whatever the file format behind the cells.
 */
import { describe, expect, it } from 'vitest';
import { createRowValidator } from '../../../sources/ledger/validate.js';
import { ExactNumber, type CellValue, type LedgerColumn } from '../../../sources/ledger/types.js';

const good: Record<LedgerColumn, CellValue> = {
  partner_reference: '  PO-1001 ',
  product_id: '42',
  paid_at: '2024-03-05 08:30:00',
  sales_price: '12.5',
  expected_cost: '10.005',
  currency_code: 'brl',
  country_code: 'br',
  order_status: 'Pago',
};

const textCells = createRowValidator({ decimalSeparator: '.', dateFormat: 'yyyy-MM-dd' }, { sheetNumbers: false });
const validate = (cells: Partial<Record<LedgerColumn, CellValue>>, validator = textCells) =>
  validator((column) => ({ ...good, ...cells })[column] ?? null, 7);

describe('createRowValidator', () => {
  it(
    'turns good cells into a canonical row: exact decimals (normalized: ' +
      '12.50 is 12.5), upper-case codes, status synonyms, its line kept',
    () => {
      const { row, reason } = validate({});
      expect(reason).toBeUndefined();
      expect(row).toMatchObject({
        product_id: 42n,
        sales_price: '12.5',
        expected_cost: '10.005',
        currency_code: 'BRL',
        country_code: 'BR',
        order_status: 'paid',
        paid_at_raw: '2024-03-05 08:30:00',
        source_line: 7,
      });
      expect(row!.partner_reference.trim()).toBe('PO-1001');
    },
  );

  it('names every problem of a record at once, each with its column', () => {
    const { row, reason } = validate({
      product_id: 'x',
      sales_price: '',
      currency_code: 'REAL',
      order_status: 'shipped',
      paid_at: 'yesterday',
    });
    expect(row).toBeUndefined();
    expect(reason).toMatch(/product_id: "x" is not a positive whole number/);
    expect(reason).toMatch(/sales_price: missing/);
    expect(reason).toMatch(/currency_code: "REAL" is not an ISO 4217 currency code/);
    expect(reason).toMatch(/order_status: "shipped" is not paid, refunded or canceled/);
    expect(reason).toMatch(/paid_at: /);
    expect(reason!.split('; ')).toHaveLength(5);
  });

  it('accepts an empty country (optional) but not an empty reference (required)', () => {
    expect(validate({ country_code: '  ' }).row?.country_code).toBeNull();
    expect(validate({ partner_reference: ' ' }).reason).toBe('partner_reference: missing');
  });

  it('reads decimal commas when told to, and typed exact numbers as they are', () => {
    const comma = createRowValidator({ decimalSeparator: ',', dateFormat: 'dd/MM/yyyy' }, { sheetNumbers: false });
    const { row } = validate(
      { sales_price: '1.000,50', expected_cost: new ExactNumber('999.9900'), paid_at: '05/03/2024' },
      comma,
    );
    expect(row).toMatchObject({ sales_price: '1000.5', expected_cost: '999.99' });
  });

  it('reads Excel date serials only where the source says cells are Excel dates', () => {
    const excel = createRowValidator(
      { decimalSeparator: '.', dateFormat: 'yyyy-MM-dd' },
      { sheetNumbers: true, excelDates: { date1904: false } },
    );
    expect(validate({ paid_at: 45356 }, excel).reason).toBeUndefined();
    expect(validate({ paid_at: 45356 }).reason).toMatch(/paid_at: 45356 is not a date/);
  });
});
