/** `pinrecon demo`: the whole month-end job on a simulator and a local mail sink, no configuration needed. */
import path from 'node:path';
import type { Command } from 'commander';
import { packageRoot } from '../../core/paths.js';
import type { DemoSummary } from '../../pipelines/ops/demo.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';
import { parseWholeNumber } from '../options.js';
import { formatTable } from '../../core/output.js';
import { describeRun } from './run.js';

export interface DemoCommandOptions extends GlobalOptions {
  out?: string;
  salesPerDay?: string;
  seed?: string;
}

export interface DemoRequest {
  outDir?: string;
  salesPerDay?: number;
  seed?: number;
}

/**
 * The command line of `demo`, checked (issue 27: pure, tested in-process). Numbers that were not were passed on as
 * NaN: a data set of NaN sales.
 */
export function parseDemo(options: DemoCommandOptions): DemoRequest {
  return {
    outDir: options.out,
    ...(options.salesPerDay !== undefined && { salesPerDay: parseWholeNumber(options.salesPerDay, '--sales-per-day') }),
    ...(options.seed !== undefined && { seed: parseWholeNumber(options.seed, '--seed') }),
  };
}

export function registerDemo(program: Command): void {
  withGlobalOptions(
    program
      .command('demo')
      .description(
        'start the API simulator and a local mail sink, generate a month of sales and a ledger with breaks, run the ' +
          'month-end job with --email',
      )
      .option('--out <dir>', 'where everything is written (replaced on every demo run)', 'demo-output')
      .option('--sales-per-day <n>', 'sales a day in the simulated data set', '300')
      .option('--seed <n>', 'seed of the simulated data and of the planted breaks', '7'),
  ).action(
    action<DemoCommandOptions, []>(async ({ output }, options) => {
      const request = parseDemo(options);
      // The demo's simulator and mail sink load only when the demo runs (start-up of every other command).
      const { runDemo } = await import('../../pipelines/ops/demo.js');
      const summary = await runDemo(output, request);
      output.result(describeDemo(summary));
      output.document({ ok: true, ...summary });
    }),
  );
}

function describeDemo(summary: DemoSummary): string {
  const pinrecon = howToCallPinrecon();
  const config = quoted(summary.configFile);
  const period = summary.period;
  const sim = summary.simulator;
  // Each act names its person by key (issue 28): the demo made a preparer's and an approver-signer's.
  const [preparer, approver] = summary.identities;
  const as = (person: DemoSummary['identities'][number] | undefined) =>
    `PINRECON_IDENTITY=${quoted(person?.file ?? 'FILE')}`;
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
    `Findings for ${summary.period} (as of ${summary.asOf}; amount: the cost bridge effect, ` +
      "exposure: keys' cost at stake):",
    formatTable(findingsTable(summary)),
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
    `  ${pinrecon} query "select exception_type, count(*) from recon_exceptions group by 1" --config ${config}`,
    '',
    ...summary.identities.map(
      (p) => `person     ${p.name} (${p.roles.join(', ')}): key ${p.file}, fingerprint ${p.fingerprint}`,
    ),
    '',
    `Next steps, as at a month end (every command takes the demo's settings: --config ${config}; each act is signed`,
    "with its person's key, PINRECON_IDENTITY or --identity):",
    `  1. decide in the workbook: open ${summary.workbook}, fill Decision (the drop-down), Note, Owner, Expected ` +
      `clear by on the finding sheets, save`,
    `  2. ${as(preparer)} ${pinrecon} findings import ${quoted(summary.workbook)} --config ${config}`,
    `  3. ${pinrecon} findings list --period ${period} --undecided --config ${config}   (what is left to decide)`,
    `  4. ${as(preparer)} ${pinrecon} actions plan --period ${period} --config ${config}` +
      '   (reversals, claims, journal entries from the decisions)',
    `  5. ${as(approver)} ${pinrecon} actions approve --period ${period} --all --config ${config}   (a second person)`,
    `  6. ${pinrecon} actions export --period ${period} --kind claim --config ${config}` +
      '   (also --kind undercharge, --kind journal)',
    '  7. reversals at the provider, against the simulator serving the demo data again: in another terminal',
    `     ${pinrecon} simulate-api --seed ${sim.seed} --from ${sim.from} --to ${sim.to} --sales ${sim.sales} ` +
      `--malformed-every ${sim.malformedEvery} --secret demo-secret --config ${config}`,
    `     then PINRECON_API_SECRET=demo-secret ${pinrecon} actions execute --period ${period} --by "Ana Lima" ` +
      `--config ${config}`,
    `  8. ${pinrecon} reconcile --period ${period} --as-of ${summary.asOf} --config ${config}` +
      '   (what the actions settled clears)',
    `  9. ${as(approver)} ${pinrecon} close --period ${period} --config ${config}` +
      '   (sign the month off, once every finding is decided)',
    '  alone, without keys: leave "people" out of the config and name yourself with --by; every sign-off, report',
    '  and email then says the names are typed, not attested',
  ].join('\n');
}

/**
 * One row per finding type with its count, and its amount and exposure per currency in columns of their own:
 * no total adds two currencies (issue 30).
 */
function findingsTable(summary: DemoSummary): Record<string, string | number>[] {
  const currencies = [...new Set(summary.findings.map((f) => f.currency_code ?? '(none)'))].sort();
  const withExposure = new Set(
    summary.findings.filter((f) => f.exposure !== null).map((f) => f.currency_code ?? '(none)'),
  );
  const types = [...new Set(summary.findings.map((f) => f.exception_type))];
  return types
    .map((type) => {
      const rows = summary.findings.filter((f) => f.exception_type === type);
      const row: Record<string, string | number> = { type, findings: rows.reduce((n, f) => n + f.findings, 0) };
      for (const currency of currencies) {
        const of = rows.find((f) => (f.currency_code ?? '(none)') === currency);
        row[`amount ${currency}`] = of?.amount ?? '';
        if (withExposure.has(currency)) row[`exposure ${currency}`] = of?.exposure ?? '';
      }
      return row;
    })
    .sort((a, b) => Number(b.findings) - Number(a.findings) || String(a.type).localeCompare(String(b.type)));
}

/** A path as a shell word: quoted when it holds anything but the usual path characters. */
function quoted(file: string): string {
  return /^[\w./@:+-]+$/.test(file) ? file : `'${file.replaceAll("'", "'\\''")}'`;
}

/** `npx pinrecon` works inside the project; anywhere else, name the entry point itself. */
function howToCallPinrecon(): string {
  return path.resolve(process.cwd()) === packageRoot()
    ? 'npx pinrecon'
    : `node ${path.join(packageRoot(), 'dist', 'cli', 'main.js')}`;
}
