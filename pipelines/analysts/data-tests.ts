/**
 * `pinrecon test --period P` (issue 31): the data tests of `sql/tests/` alone, like `dbt test`: the period's models
 * are built as reconcile builds them (same inputs, as of the period's last reconcile), the tests run, and nothing
 * is published or recorded: every table it makes is temporary and dropped. It reads the database, or its snapshot
 * while a job holds it, so it never waits for a job.
 */
import type { Config } from '../../config/schema.js';
import { todayIn } from '../../core/calendar.js';
import { buildModels, databaseName, dropModels, loadTests, planModels, runDataTests } from '../../core/model-runner.js';
import type { Output } from '../../core/output.js';
import type { Warehouse } from '../../core/warehouse.js';
import { createSignedInput } from '../close/close.js';
import { activeSignoff } from '../close/signoffs.js';
import { checkCompleteness } from '../extract/completeness.js';
import { createInputs, inputTables } from '../reconcile/reconcile.js';
import { fitMemoryToScope } from '../reconcile/scope.js';

export interface DataTestSummary {
  period: string;
  /** The date the models were built as of: the period's last reconcile's, else today. */
  asOf: string;
  tests: { name: string; passed: boolean }[];
}

/** Runs every data test for the period; a failing test is a JobError showing its failing rows (PINs masked). */
export async function testPeriod(
  warehouse: Warehouse,
  config: Config,
  options: { period: string; asOf?: string },
  output: Output,
): Promise<DataTestSummary> {
  const { period } = options;
  const last = await warehouse.one<{ as_of: string }>(
    `SELECT strftime(max_by(as_of, built_at), '%Y-%m-%d') AS as_of FROM recon_runs WHERE period = $1`,
    [period],
  );
  const asOf = options.asOf ?? last?.as_of ?? todayIn(config.timezone);
  const models = planModels();
  const database = await databaseName(warehouse);
  const completeness = await checkCompleteness(warehouse, config, period);
  const signoffId = (await activeSignoff(warehouse, period))?.signoffId ?? null;
  try {
    const runId = `test-${period}`;
    await createInputs(warehouse, config, database, {
      period,
      asOf,
      runId,
      builtAt: new Date(),
      completeness,
      signoffId,
    });
    await createSignedInput(warehouse, database, signoffId);
    await fitMemoryToScope(warehouse);
    await buildModels(warehouse, models, { stages: {}, models: {} }, output);
    const tests = await runDataTests(warehouse, loadTests());
    return { period, asOf, tests };
  } finally {
    await dropModels(warehouse, models, inputTables);
  }
}
