/**
 * `pinrecon test --period P [--as-of D]`: the data tests of sql/tests alone, against the period's models built as
 * reconcile builds them, nothing published (pipelines/analysts/data-tests.ts); exit 1 naming each failed test.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { JobError } from '../../core/errors.js';
import { openDatabaseOrSnapshot } from '../../pipelines/analysts/query.js';
import { action, type GlobalOptions, withGlobalOptions } from '../context.js';
import { parseDateOption, periodOption, type ParseContext } from '../options.js';

export interface TestOptions extends GlobalOptions {
  period?: string;
  asOf?: string;
}

export interface TestRequest {
  period: string;
  asOf?: string;
}

/** The command line of `test`, checked (issue 27: pure, tested in-process). */
export function parseTest(options: TestOptions, at: ParseContext): TestRequest {
  const period = periodOption(options.period, at);
  const asOf = parseDateOption(options.asOf, '--as-of');
  return { period, ...(asOf ? { asOf } : {}) };
}

export function registerTest(program: Command): void {
  withGlobalOptions(
    program
      .command('test')
      .description("run the data tests (sql/tests) on a period's models, publishing nothing")
      .requiredOption('--period <YYYY-MM>', 'the period (or previous, current)')
      .option('--as-of <YYYY-MM-DD>', "build as of this date (default: the period's last reconcile's)"),
  ).action(
    action<TestOptions, []>(async ({ config, output }, options) => {
      const request = parseTest(options, { timeZone: config.timezone });
      const { period } = request;
      if (!existsSync(config.database)) {
        throw new JobError(`There is no database at ${config.database} yet.`, 'Run pinrecon run or reconcile first.');
      }
      // Read-only: the database itself, or its snapshot while a job holds it (never waiting for the job).
      const warehouse = await openDatabaseOrSnapshot(config, output, { readOnly: true });
      try {
        const { testPeriod } = await import('../../pipelines/analysts/data-tests.js');
        const summary = await testPeriod(warehouse, config, request, output);
        output.result(
          [
            `data tests of ${period} (as of ${summary.asOf}): ${summary.tests.length} passed`,
            ...summary.tests.map((t) => `  ok  ${t.name}`),
          ].join('\n'),
        );
        output.document({ ok: true, ...summary });
      } finally {
        warehouse.close();
      }
    }),
  );
}
