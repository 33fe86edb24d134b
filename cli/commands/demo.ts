/** `pinrecon demo`: the whole month-end job on a simulator and a local mail sink, no configuration needed. */
import path from 'node:path';
import type { Command } from 'commander';
import { packageRoot } from '../../core/paths.js';
import type { DemoSummary } from '../../pipelines/ops/demo.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';
import { formatTable } from '../../core/output.js';
import { describeRun } from './run.js';

interface DemoCommandOptions extends GlobalOptions {
  out?: string;
  salesPerDay?: string;
  seed?: string;
}

export function registerDemo(program: Command): void {
  withGlobalOptions(
    program
      .command('demo')
      .description(
        'start the API simulator and a local mail sink, generate a month of sales and a ledger with breaks, run the month-end job with --email',
      )
      .option('--out <dir>', 'where everything is written (replaced on every demo run)', 'demo-output')
      .option('--sales-per-day <n>', 'sales a day in the simulated data set', '300')
      .option('--seed <n>', 'seed of the simulated data and of the planted breaks', '7'),
  ).action(
    action<DemoCommandOptions, []>(async ({ output }, options) => {
      // The demo's simulator and mail sink load only when the demo runs (start-up of every other command).
      const { runDemo } = await import('../../pipelines/ops/demo.js');
      const summary = await runDemo(output, {
        outDir: options.out,
        salesPerDay: Number(options.salesPerDay),
        seed: Number(options.seed),
      });
      output.result(describeDemo(summary));
      output.document({ ok: true, ...summary });
    }),
  );
}

function describeDemo(summary: DemoSummary): string {
  const totals = summary.totals.map((t) => ({
    currency: t.currency_code,
    'provider sales (not canceled)': t.provider_sales,
    'their sales total': t.provider_sales_total,
    'their cost': t.provider_cost_total,
    'ledger expected cost (paid)': t.ledger_cost_total,
  }));
  return [
    '',
    describeRun(summary.run),
    '',
    `Findings for ${summary.period} (as of ${summary.asOf}):`,
    formatTable(
      summary.findings.map((f) => ({ type: f.exception_type, findings: f.findings, difference: f.amount ?? '' })),
    ),
    '',
    formatTable(totals),
    '',
    `database   ${summary.database}`,
    `snapshot   ${summary.snapshot}   (open it read-only while jobs run)`,
    `workbook   ${summary.workbook}`,
    `email      ${summary.emails.join(', ') || '(none received)'}`,
    `ledger     ${summary.ledger}   (${summary.plant.lines} lines, with planted breaks)`,
    ...(summary.reversal
      ? [
          `action     ${summary.reversal.actionId}: reversal of sale ${summary.reversal.transactionId} ` +
            `(refunded_not_reversed ${summary.reversal.partnerReference ?? ''}), ` +
            `decided by ${summary.reversal.decidedBy}, approved by ${summary.reversal.approvedBy}, ` +
            `executed: ${summary.reversal.outcome.toUpperCase()} (${summary.reversal.detail})`,
          `           the next reconcile clears that finding; see \`pinrecon actions list --period ${summary.period}\``,
        ]
      : []),
    `done in ${summary.seconds.toFixed(1)}s. Ask the database yourself:`,
    `  PINRECON_DATABASE=${summary.database} ${howToCallPinrecon()} query "select exception_type, count(*) from recon_exceptions group by 1"`,
    '',
    'Next steps, as at a month end:',
    `  1. decide in the workbook: open ${summary.workbook}, fill Decision (the drop-down), Note, Owner, Expected clear by on the finding sheets, save`,
    `  2. PINRECON_DATABASE=${summary.database} ${howToCallPinrecon()} findings import ${summary.workbook} --by "<your name>"`,
    `  3. PINRECON_DATABASE=${summary.database} ${howToCallPinrecon()} findings list --period ${summary.period} --undecided   (what is left to decide)`,
    `  4. PINRECON_DATABASE=${summary.database} ${howToCallPinrecon()} actions plan --period ${summary.period}` +
      '   (reversals, claims, journal entries from the decisions)',
    `     then a second person: actions approve --period ${summary.period} --all --by "<name>"; then actions execute / actions export`,
    `  5. PINRECON_DATABASE=${summary.database} ${howToCallPinrecon()} close --period ${summary.period} --by "<your name>"` +
      '   (sign the month off)',
  ].join('\n');
}

/** `npx pinrecon` works inside the project; anywhere else, name the entry point itself. */
function howToCallPinrecon(): string {
  return path.resolve(process.cwd()) === packageRoot()
    ? 'npx pinrecon'
    : `node ${path.join(packageRoot(), 'dist', 'cli', 'main.js')}`;
}
