/**
 * The jobs of the CLI's commands, run in this process for a test's setup steps (issue 27): each spawn of the built CLI
 * costs about a CPU-second, so a CLI test spawns it for the command it is about and does the steps before that here,
 * calling the pipeline each command calls, on the database its config names (opened for the step only: the CLI needs
 * it free). What a step prints is kept, and given back with the job's result.
 */
import type { Config, PersonRole } from '../../config/schema.js';
import type { Output } from '../../core/output.js';
import { withWarehouse, type Warehouse } from '../../core/warehouse.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';
import { extractSales } from '../../pipelines/extract/extract.js';
import { importLedger, type LedgerImportOptions } from '../../pipelines/ledger/import.js';
import { closePeriod, reopenPeriod, type CloseOptions, type ReopenOptions } from '../../pipelines/close/close.js';
import { reconcile, type ReconcileOptions } from '../../pipelines/reconcile/reconcile.js';
import { applyMateriality } from '../../pipelines/decisions/materiality.js';
import { decideFindings, type DecideOptions } from '../../pipelines/decisions/findings.js';
import { planActions } from '../../pipelines/actions/plan.js';
import { approveActions } from '../../pipelines/actions/approve.js';
import { executeActions } from '../../pipelines/actions/execute.js';
import { resolveActor, type Actor } from '../../pipelines/people/actor.js';
import { writeReport, type ReportOptions } from '../../pipelines/report/report.js';
import { runMonthEnd, type RunOptions } from '../../pipelines/ops/month-end.js';
import { capturedOutput } from './extract.js';

/** The job on the config's database, opened as the CLI opens it, with a quiet Output whose text is kept. */
async function job<T>(config: Config, work: (warehouse: Warehouse, output: Output) => Promise<T>) {
  const { output, text } = capturedOutput();
  const result = await withWarehouse(config.database, warehouseSettings(config), (w) => work(w, output));
  return { result, console: text() };
}

/** `pinrecon extract --from F --to T [--by B]`. */
export const extractStep = (config: Config, options: Parameters<typeof extractSales>[2]) =>
  job(config, (w, output) => extractSales(w, config, options, output));

/** `pinrecon ledger import FILE`. */
export const ledgerImportStep = (config: Config, file: string, options: LedgerImportOptions = {}) =>
  job(config, (w, output) => importLedger(w, config, file, options, output));

/** `pinrecon reconcile --period P --as-of A`: the reconcile, then the materiality rule, as the command does. */
export const reconcileStep = (config: Config, options: ReconcileOptions) =>
  job(config, async (w, output) => {
    const summary = await reconcile(w, config, options, output);
    await applyMateriality(w, config, options.period);
    return summary;
  });

/** `pinrecon report --period P [--email --dry-run]`. */
export const reportStep = (config: Config, options: ReportOptions) =>
  job(config, (w, output) => writeReport(w, config, options, output));

/** `pinrecon run --period P …`: the month-end job (extract, ledger import, reconcile, report). */
export const runStep = (config: Config, options: RunOptions) =>
  job(config, (w, output) => runMonthEnd(w, config, options, output));

/** `pinrecon findings decide ID… --decision D …` by a typed name (no people configured). */
export const decideStep = (config: Config, ids: string[], options: DecideOptions) =>
  job(config, (w) => decideFindings(w, ids, { timezone: config.timezone, ...options }));

/** `pinrecon actions plan --period P --by B` (a name typed), or `--identity FILE` (an actor: resolvedActor). */
export const planStep = (config: Config, period: string, by: string | Actor) =>
  job(config, (w) => planActions(w, config, { period, ...who(by) }));

/** `pinrecon actions approve --period P --all --by B` (a name typed), or `--identity FILE` (an actor). */
export const approveAllStep = (config: Config, period: string, by: string | Actor) =>
  job(config, (w) => approveActions(w, config, { period, all: true, ...who(by) }));

/** `pinrecon actions execute --period P --by B`. */
export const executeStep = (config: Config, period: string, by: string) =>
  job(config, (w, output) => executeActions(w, config, { period, by }, output));

/** Who acts, as the commands resolve `--identity FILE` for an act needing `role` (people configured). */
export const resolvedActor = (config: Config, identity: string, role: PersonRole, act: string) =>
  resolveActor(config, { identity }, role, act);

const who = (by: string | Actor) => (typeof by === 'string' ? { by } : { actor: by });

/** `pinrecon close --period P --by B …` by a typed name. */
export const closeStep = (config: Config, options: CloseOptions) =>
  job(config, (w, output) => closePeriod(w, config, options, output));

/** `pinrecon reopen --period P --by B --reason R` by a typed name. */
export const reopenStep = (config: Config, options: ReopenOptions) =>
  job(config, (w, output) => reopenPeriod(w, config, options, output));
