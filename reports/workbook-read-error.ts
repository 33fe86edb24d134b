/**
 * What an import of a pinrecon workbook says when the file cannot be read (the decisions and the Suggested matches
 * sheet are read alike): one over the reader's limits is refused as the guard `ledger import` uses refuses it (a
 * zip bomb took minutes of CPU, issue 18); anything else is a file that is not a readable XLSX workbook.
 */
import { JobError } from '../core/errors.js';
import { XlsxLimitExceeded } from '../core/xlsx-limits.js';
import { SheetReadLimitExceeded } from '../core/xlsx-sheet-reader.js';

export function workbookReadError(file: string, error: unknown): JobError {
  if (error instanceof XlsxLimitExceeded || error instanceof SheetReadLimitExceeded) {
    return new JobError(
      `${file} is refused: ${error.message}.`,
      'Import the workbook `pinrecon report` wrote, as Excel or LibreOffice saved it; ' +
        'if this file is not one, ask who sent it.',
      { cause: error },
    );
  }
  return new JobError(
    `${file} could not be read as an XLSX workbook (${(error as Error).message}).`,
    'Save the workbook from Excel or LibreOffice as an Excel Workbook (.xlsx) and import that file.',
    { cause: error },
  );
}
