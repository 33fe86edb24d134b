/**
 * `pinrecon verify --period P`: recomputes the period's decision chain, its sign-offs' content hashes and
 * their manifests' file hashes; exit 1 naming the first that does not match (pipelines/close/verify.ts).
 */
import type { Command } from 'commander';
import { verifyPeriod } from '../../pipelines/close/verify.js';
import { action, parsePeriodOption, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';

interface VerifyOptions extends GlobalOptions {
  period?: string;
}

export function registerVerify(program: Command): void {
  withGlobalOptions(
    program
      .command('verify')
      .description(
        "proves a period's audit trail: the decision chain, the sign-offs' content hashes and the files behind them",
      )
      .requiredOption('--period <YYYY-MM>', 'the period to verify'),
  )
    .addHelpText(
      'after',
      `
Recomputes every recon_decisions row's hash and its link to the row before (a row changed, removed or
reordered breaks the chain), each sign-off's content_sha256 from its signed rows, the decision chain head its
manifest holds (and that nothing was decided after it while signed), and the sha256 of every landing and
ledger file the manifest lists. Exit 0: verified; exit 1: the first row or file that does not match is named.

Example:
  pinrecon verify --period 2026-01`,
    )
    .action(
      action<VerifyOptions, []>(async ({ config, output }, options) => {
        const period = parsePeriodOption(options.period);
        const report = await withJobWarehouse(config, (warehouse) => verifyPeriod(warehouse, period));
        const head = report.chainHead
          ? ` (head ${report.chainHead.position}: ${report.chainHead.sha256.slice(0, 16)}…)`
          : '';
        const signoffs = `${report.signoffs.length} sign-off(s)`;
        const facts = `${report.decisions} decision(s) in the chain${head}, ${signoffs}, ${report.filesChecked} file(s)`;
        output.document(report);
        if (report.ok) {
          output.result(`verified ${period}: ${facts}`);
          return;
        }
        const [first] = report.mismatches;
        output.error(`${period} does not verify: ${first!.subject}: ${first!.reason}`);
        for (const other of report.mismatches.slice(1, 50)) output.error(`  also: ${other.subject}: ${other.reason}`);
        if (report.mismatches.length > 50)
          output.error(`  … and ${report.mismatches.length - 50} more (--json lists them all)`);
        output.error(`checked: ${facts}`);
        process.exitCode = 1;
      }),
    );
}
