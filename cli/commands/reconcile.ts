/** `pinrecon reconcile`: (re)builds the reconciliation models of one period and prints what it found. */
import type { Command } from 'commander';
import { findingTypeNames } from '../../core/finding-types.js';
import { describeProof, manyLookups, reconcile, type ReconcileSummary } from '../../pipelines/reconcile/reconcile.js';
import { applyMateriality } from '../../pipelines/decisions/materiality.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import { parseDateOption, periodOption, type ParseContext } from '../options.js';
import { formatTable, type Output } from '../../core/output.js';

export interface ReconcileCommandOptions extends GlobalOptions {
  period: string;
  asOf?: string;
  allowIncomplete?: boolean;
}

export interface ReconcileRequest {
  period: string;
  asOf?: string;
  allowIncomplete: boolean;
}

/** The command line of `reconcile`, checked (issue 27: pure, tested in-process). */
export function parseReconcile(options: ReconcileCommandOptions, at: ParseContext): ReconcileRequest {
  const period = periodOption(options.period, at);
  const asOf = parseDateOption(options.asOf, '--as-of');
  return { period, ...(asOf ? { asOf } : {}), allowIncomplete: Boolean(options.allowIncomplete) };
}

export function registerReconcile(program: Command): void {
  withGlobalOptions(
    program
      .command('reconcile')
      .description(
        '(re)build the reconciliation of a period: findings, summary per currency, cost bridge, aging of unredeemed ' +
          'keys',
      )
      .requiredOption('--period <YYYY-MM>', 'the month to reconcile (configured time zone)')
      .option('--as-of <date>', 'the date unredeemed keys are aged at, YYYY-MM-DD (default: today)')
      .option(
        '--allow-incomplete',
        'reconcile a period that is not completely extracted; its findings get the verdict incomplete',
      ),
  )
    .addHelpText(
      'after',
      `
A period's findings are about the ledger orders paid in it and the provider sales dated in it.
A paid ledger order without a provider sale is missing_at_provider with a proof: "windows" when the
stored by-creation windows cover every day from extract.historyStart to the day before --as-of (the
back-fill of extract/run stores them), else "lookup" when asking the provider for its reference found
nothing (reconciliation.lookupMissing; needs api.identifier and api.secret), else "unproven". \
The data tests of sql/tests run
after the build; if one fails, nothing is published and the command exits 1 showing the failing rows.
Findings keep their identity across runs: recon_exception_history says what is new, still open, cleared.
A period is reconciled only when it is completely extracted (every day by paid and by creation date,
fetched after it ended, no failed window); otherwise the command exits 1 naming the missing days and the
pinrecon extract command that fills them (--allow-incomplete stores the findings as incomplete).

Example:
  pinrecon reconcile --period 2026-01 --as-of 2026-02-05`,
    )
    .action(
      action<ReconcileCommandOptions, []>(async ({ config, output }, options) => {
        const request = parseReconcile(options, { timeZone: config.timezone });
        const { period } = request;
        const { summary, materiality } = await withJobWarehouse(config, async (warehouse) => {
          const summary = await reconcile(warehouse, config, request, output);
          // Issue 30: what is under reconciliation.materiality is decided accepted by the rule, visibly.
          return { summary, materiality: await applyMateriality(warehouse, config, period) };
        });
        printSummary(summary, output);
        for (const a of materiality.accepted)
          output.result(
            `materiality: ${a.findings} finding(s) under ${a.threshold} decided accepted by rule:materiality`,
          );
        output.document({ ok: true, ...summary });
      }),
    );
}

function printSummary(s: ReconcileSummary, output: Output): void {
  const types = findingTypeNames
    .filter((t) => s.byType[t] > 0)
    .map((t) => ({ exception_type: t, findings: s.byType[t] }));
  const currencies = s.currencies.map((c) => ({
    currency: c.currencyCode ?? '(none)',
    ledger_orders: c.ledgerOrders,
    ledger_cost: c.ledgerCostTotal,
    provider_sales: c.providerSales,
    provider_cost: c.providerCostTotal,
    margin: c.providerMargin,
    matched: c.matched,
    exceptions: c.exceptions,
  }));
  const lookup = s.lookup.done
    ? `individual lookups: ${s.lookup.references} references, ${s.lookup.found} found`
    : `individual lookups: skipped (${s.lookup.skippedBecause})`;
  const proof =
    `missing at provider: ${describeProof(s.proof)}` +
    (s.coverage.provesAbsence
      ? ` (by-creation windows cover ${s.coverage.historyStart}..${s.coverage.coveredThrough})`
      : '') +
    ((s.lookup.references ?? 0) > manyLookups
      ? ' — extract.historyStart, with its back-fill, avoids the look-ups'
      : '');
  const signoff = `sign-off: ${s.signoffDescription}`;
  output.result(
    [
      `reconcile ${s.period} as of ${s.asOf}: ${s.exceptions} findings (${s.history.new} new, ${s.history.stillOpen} ` +
        `still open, ${s.history.cleared} cleared)`,
      `verdict: ${s.verdict.toUpperCase()}` +
        `${s.completeness.complete ? '' : ` — ${s.completeness.reasons.join('; ')}`}`,
      signoff,
      '',
      types.length > 0 ? formatTable(types) : 'no findings',
      '',
      formatTable(currencies),
      '',
      lookup,
      proof,
      `data tests: ${s.tests.filter((t) => t.passed).length}/${s.tests.length} passed`,
      `stages: ${Object.entries(s.stages)
        .map(([stage, seconds]) => `${stage} ${seconds.toFixed(2)} s`)
        .join(' · ')} · total ${s.elapsedSeconds.toFixed(2)} s`,
      `run ${s.runId} · query the marts: recon_exceptions, recon_summary, recon_bridge, recon_aging, ` +
        `recon_exception_history`,
    ].join('\n'),
  );
}
