/** `pinrecon ledger import`'s command line in-process (issue 27 item 5): its parse function and commander wiring. */
import { describe, expect, it } from 'vitest';
import { type ImportOptions, parseLedgerImport } from '../../cli/commands/ledger.js';
import { UsageError } from '../../core/errors.js';
import { driven, refused } from './drive.js';

describe('parseLedgerImport', () => {
  it('without options: no override, nothing forced', () => {
    expect(parseLedgerImport({}, 'ledger.csv')).toStrictEqual({ file: 'ledger.csv', options: { overrides: {} } });
  });

  it('takes every override, normalising the delimiter and the encoding', () => {
    const options: ImportOptions = {
      format: 'csv',
      delimiter: 'tab',
      encoding: 'LATIN1',
      decimalSeparator: ',',
      dateFormat: 'dd/MM/yyyy HH:mm:ss',
      sheet: 'Vendas',
      replace: true,
      allowOverlap: true,
      insteadOf: 'old.csv',
    };
    expect(parseLedgerImport(options, 'vendas.txt')).toEqual({
      file: 'vendas.txt',
      options: {
        format: 'csv',
        overrides: {
          delimiter: '\t',
          encoding: 'latin1',
          decimalSeparator: ',',
          dateFormat: 'dd/MM/yyyy HH:mm:ss',
          sheet: 'Vendas',
        },
        replace: true,
        allowOverlap: true,
        insteadOf: 'old.csv',
      },
    });
  });

  it('refuses a bad format, delimiter, encoding or decimal separator, naming the option and what it takes', () => {
    const refusedWith = (options: ImportOptions) => () => parseLedgerImport(options, 'l.csv');
    expect(refusedWith({ encoding: 'ebcdic' })).toThrow(UsageError);
    expect(refusedWith({ encoding: 'ebcdic' })).toThrow(
      '--encoding must be one of utf-8, latin1, windows-1252, got "ebcdic".',
    );
    expect(refusedWith({ format: 'dbf' })).toThrow(/^--format must be one of csv, .*, got "dbf"\.$/);
    expect(refusedWith({ delimiter: ':' })).toThrow('--delimiter must be "," ";" "|" or tab, got ":".');
    expect(refusedWith({ decimalSeparator: "'" })).toThrow(`--decimal-separator must be "." or ",", got "'".`);
  });
});

describe('pinrecon ledger import (commander, in-process)', () => {
  it('gives the parse the file and every option it declares', async () => {
    const { options, args } = await driven<ImportOptions>([
      ...['ledger', 'import', 'vendas.txt', '--format', 'csv', '--delimiter', '|', '--encoding', 'latin1'],
      ...['--decimal-separator', ',', '--date-format', 'dd/MM/yyyy', '--sheet', 'S', '--replace'],
      ...['--instead-of', 'old.csv', '--allow-overlap'],
    ]);
    expect(parseLedgerImport(options, args[0] as string)).toEqual({
      file: 'vendas.txt',
      options: {
        format: 'csv',
        overrides: { delimiter: '|', encoding: 'latin1', decimalSeparator: ',', dateFormat: 'dd/MM/yyyy', sheet: 'S' },
        replace: true,
        allowOverlap: true,
        insteadOf: 'old.csv',
      },
    });
  });

  it('needs the file, and names an unknown subcommand; --help lists import', async () => {
    expect((await refused(['ledger', 'import'])).stderr).toContain("error: missing required argument 'file'");
    expect((await refused(['ledger', 'bogus'])).stderr).toContain("error: unknown command 'bogus'");
    const help = await refused(['ledger', '--help']);
    expect(help.error.code).toBe('commander.helpDisplayed');
    expect(help.stdout).toMatch(/import \[options\] <file>/);
  });
});
