/**
 * `pinrecon verify --period P [--public-keys FILE] [--seal FILE]`: recomputes both hash chains, checks every
 * signature, each sign-off's content hash and seal, and the manifest's files (printing every path read); exit 1
 * naming the first thing that does not match, or when there is nothing to verify (pipelines/close/verify.ts).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { keysFromFile, registeredKeys } from '../../pipelines/close/known-keys.js';
import { verifyPeriod } from '../../pipelines/close/verify.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import { periodOption, type ParseContext } from '../options.js';

export interface VerifyOptions extends GlobalOptions {
  period?: string;
  publicKeys?: string;
  seal?: string;
}

export interface VerifyRequest {
  period: string;
  publicKeys?: string;
  seal?: string;
}

/** The command line of `verify`, checked (issue 27: pure, tested in-process; the files are read by the action). */
export function parseVerify(options: VerifyOptions, at: ParseContext): VerifyRequest {
  return {
    period: periodOption(options.period, at),
    ...(options.publicKeys && { publicKeys: options.publicKeys }),
    ...(options.seal && { seal: options.seal }),
  };
}

export function registerVerify(program: Command): void {
  withGlobalOptions(
    program
      .command('verify')
      .description(
        "proves a period's audit trail: both hash chains, every signature, the sign-offs and their seals, the files",
      )
      .requiredOption('--period <YYYY-MM>', 'the period to verify')
      .option('--public-keys <file>', 'check signatures with these PEM public keys (default: the config people)')
      .option('--seal <file>', 'a seal statement kept outside the database: prove the database still holds it'),
  )
    .addHelpText(
      'after',
      `
Recomputes every recon_decisions and recon_action_events row's hash and its link to the row before (a row
changed, removed or reordered breaks the chain) and checks each signature with the registered keys (config
people, or --public-keys FILE). For each sign-off: its content_sha256 from its signed rows, its seal (the row,
the chain heads, the manifest's sha256) and the seal's signature, and the sha256 of every landing and ledger
file the manifest lists — a file that was under the database's folder is read under its folder now, so a
copied database checks the copy. Every path read is printed. --seal FILE (seal.json of an audit pack, or one
kept when the period was signed) fails when the database no longer holds that sign-off as sealed.
Without people configured, names were typed, not attested, and verify says so. The materiality rule's
acceptances are unsigned: each must name a finding within reconciliation.materiality of the config.
Exit 0: verified; exit 1: the first row or file that does not match is named, or nothing to verify.

Example:
  pinrecon verify --period 2026-01 --seal seal-2026-01.json`,
    )
    .action(
      action<VerifyOptions, []>(async ({ config, output }, options) => {
        const request = parseVerify(options, { timeZone: config.timezone });
        const { period } = request;
        const keys = request.publicKeys ? keysFromFile(request.publicKeys, config) : registeredKeys(config);
        let seal: { file: string; text: string } | undefined;
        if (request.seal) {
          try {
            seal = { file: request.seal, text: readFileSync(request.seal, 'utf8') };
          } catch (error) {
            const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
            throw new UsageError(`--seal ${request.seal}: cannot read it (${code}).`);
          }
        }
        const report = await withJobWarehouse(
          config,
          (warehouse) =>
            verifyPeriod(warehouse, period, {
              database: config.database,
              keys,
              seal,
              materiality: config.reconciliation.materiality,
            }),
          { readsOnly: true },
        );
        const head = report.chainHead
          ? ` (head ${report.chainHead.position}: ${report.chainHead.sha256.slice(0, 16)}…)`
          : '';
        const signoffs = `${report.signoffs.length} sign-off(s)`;
        const signed = report.attested ? `, ${report.signedRows} signed row(s) checked` : '';
        const facts =
          `${report.decisions} decision(s) in the chain${head}, ${signoffs}, ${report.filesChecked} file(s), ` +
          `${report.actionEvents} action event(s)${signed}`;
        output.document(report);
        const lines = report.files.map((f) => `  read ${f.shown}: ${f.status}`);
        for (const s of report.signoffs)
          if (s.sealSha256) lines.push(`  Seal sha256 of ${s.signoffId}: ${s.sealSha256}`);
        if (report.notice) lines.push(`  ${report.notice}`);
        // Issue 34: the approval policies in force at each approval (approval_policies holds each one's text).
        for (const p of report.policies)
          lines.push(
            `  approvals under policy ${p.policySha256}: ${p.approvals}${p.policy ? '' : ' (policy text missing)'}`,
          );
        if (report.ok) {
          output.result([`verified ${period}: ${facts}`, ...lines].join('\n'));
          return;
        }
        const [first] = report.mismatches;
        output.error(`${period} does not verify: ${first!.subject}: ${first!.reason}`);
        for (const other of report.mismatches.slice(1, 50)) output.error(`  also: ${other.subject}: ${other.reason}`);
        if (report.mismatches.length > 50)
          output.error(`  … and ${report.mismatches.length - 50} more (--json lists them all)`);
        output.error([`checked: ${facts}`, ...lines].join('\n'));
        process.exitCode = 1;
      }),
    );
}
