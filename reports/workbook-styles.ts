/** The workbook's cell styles, shared by the Summary and the detail sheets. */
import type ExcelJS from 'exceljs';
import { dateFormat, dateTimeFormat, integerFormat, moneyFormat } from './formats.js';

export type Style = Partial<ExcelJS.Style>;
export const styles = {
  plain: {} as Style,
  title: { font: { bold: true, size: 14 } } as Style,
  heading: { font: { bold: true, size: 12 } } as Style,
  header: { font: { bold: true }, fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE7ECF3' } } } as Style,
  wrappedHeader: {
    font: { bold: true },
    fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE7ECF3' } },
    alignment: { wrapText: true, vertical: 'top' },
  } as Style,
  bold: { font: { bold: true } } as Style,
  warning: { font: { bold: true, color: { argb: 'FFB00020' } } } as Style,
  alertBand: {
    font: { bold: true, size: 13, color: { argb: 'FFFFFFFF' } },
    fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFB00020' } },
  } as Style,
  /** Cells pinrecon writes for reading only (Decided by/at, Decision ref): grey. */
  readOnly: { font: { color: { argb: 'FF808080' } } } as Style,
  integer: { numFmt: integerFormat } as Style,
  date: { numFmt: dateFormat } as Style,
  dateTime: { numFmt: dateTimeFormat } as Style,
};
/** One shared style object per currency: exceljs caches styles by object, so sharing keeps 1M rows fast. */
const moneyStyles = new Map<string, Style>();
export function moneyStyle(currency: string | null | undefined): Style {
  const key = currency ?? '';
  let style = moneyStyles.get(key);
  if (!style) moneyStyles.set(key, (style = { numFmt: moneyFormat(currency) }));
  return style;
}
