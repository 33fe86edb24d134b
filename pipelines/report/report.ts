/**
 * The report job: reads a reconciled period's facts, writes `pinrecon-<period>.xlsx` into
 * `reports.outDir`, and with email sends it (or, for a dry run, writes the message as .eml beside it).
 * A workbook larger than `email.maxAttachmentBytes` travels as a summary-only copy that says where the
 * full one is. If sending fails for good, the workbook stays on disk and the run is recorded as failed.
 */
import path from 'node:path';
import type { Output } from '../../core/output.js';
import { JobError } from '../../core/errors.js';
import type { Config } from '../../config/schema.js';
import { composeReportEmail, deliverReportEmail, type DeliverOptions, type Delivery } from '../../reports/email.js';
import { noLedgerOrdersWarning } from '../../reports/fact-lines.js';
import { loadReportFacts } from '../../reports/report-facts.js';
import { loadSignoffFacts } from '../close/signoffs.js';
import type { WrittenSheet } from '../../reports/summary-sheet.js';
import { writeWorkbook } from '../../reports/workbook.js';
import { describeClose } from '../../reports/close-facts.js';
import { checkCompleteness, type Completeness } from '../extract/completeness.js';
import { refreshCarriedForward } from '../reconcile/carried-inputs.js';
import { recordRun } from '../../core/run-trace.js';
import type { Warehouse } from '../../core/warehouse.js';

export interface ReportOptions {
  period: string;
  /** Must match the period's reconciliation (default: whatever date it was reconciled as of). */
  asOf?: string;
  /** Send the workbook to email.to. */
  email?: boolean;
  /** Write the email as .eml beside the workbook instead of sending it (implies composing the email). */
  dryRun?: boolean;
  parentRunId?: string;
  /** Rows per sheet including the header (default: Excel's limit). */
  maxRowsPerSheet?: number;
  /** First wait between send attempts (default 2000 ms, doubled each time). */
  retryBaseDelayMs?: number;
  /** TLS options for the SMTP connection (e.g. a private CA). */
  tls?: DeliverOptions['tls'];
  /** The period's completeness as this job's reconcile just checked it (month-end); else checked here. */
  completeness?: Completeness;
}

export interface ReportSummary {
  runId: string;
  period: string;
  asOf: string;
  workbook: string;
  bytes: number;
  /** Detail rows written. */
  rows: number;
  exceptions: number;
  sheets: WrittenSheet[];
  /** The period's completeness verdict and sign-off state as the workbook says them. */
  verdict: string | null;
  signoffStatus: string;
  /** The sign-off state in words, as the workbook, its footer and the email say it (reports/close-facts.ts). */
  signoff: string;
  email?: Delivery & { attachment: string; summaryOnly: boolean };
}

export async function writeReport(
  warehouse: Warehouse,
  config: Config,
  options: ReportOptions,
  output: Output,
): Promise<ReportSummary> {
  const args = {
    period: options.period,
    asOf: options.asOf ?? null,
    email: Boolean(options.email),
    dryRun: Boolean(options.dryRun),
  };
  return recordRun(
    warehouse,
    'report',
    args,
    async (run) => {
      // Issue 30: earlier periods' findings as they stand now (decided or cleared since this period's reconcile).
      await refreshCarriedForward(warehouse, { period: options.period });
      const facts = await loadReportFacts(warehouse, {
        period: options.period,
        asOf: options.asOf,
        timezone: config.timezone,
        signoff: await loadSignoffFacts(warehouse, options.period, config.timezone),
        completeness: options.completeness ?? (await checkCompleteness(warehouse, config, options.period)),
      });
      const closed = facts.close;
      if (closed.verdict === 'incomplete')
        output.warn(`the period ${options.period} is INCOMPLETE: ${closed.incompleteReasons.join('; ')}`);
      const close = describeClose(closed);
      if (close.signoffState !== 'unsigned') output.info(`${options.period} ${close.signoff}`);
      const noLedgerOrders = noLedgerOrdersWarning(facts);
      if (noLedgerOrders) output.warn(noLedgerOrders);
      const file = path.join(config.reports.outDir, `pinrecon-${options.period}.xlsx`);
      const generatedAt = new Date();
      output.info(`writing ${file} (${options.period}, as of ${facts.asOf})`);
      const workbook = await writeWorkbook(warehouse, facts, {
        file,
        generatedAt,
        paperSize: config.reports.paperSize,
        maxRowsPerSheet: options.maxRowsPerSheet,
        onProgress: (done, total) => output.progress({ label: 'rows', done, total }),
      });
      output.clearProgress();
      const rows = workbook.sheets.reduce((sum, sheet) => sum + sheet.rows, 0);
      output.info(
        `wrote ${file}: ${rows} detail rows on ${workbook.sheets.length + 1} sheets, ${facts.totalFindings} findings`,
      );
      run.counters.rowsLoaded = rows;
      run.details = {
        workbook: file,
        bytes: workbook.bytes,
        asOf: facts.asOf,
        exceptions: facts.totalFindings,
        sheets: workbook.sheets,
        verdict: closed.verdict,
        signoffStatus: closed.status,
      };
      const summary: ReportSummary = {
        runId: run.runId,
        period: options.period,
        asOf: facts.asOf,
        workbook: file,
        bytes: workbook.bytes,
        rows,
        exceptions: facts.totalFindings,
        sheets: workbook.sheets,
        verdict: closed.verdict,
        signoffStatus: closed.status,
        signoff: close.signoff,
      };
      if (!options.email && !options.dryRun) return summary;

      let attachment = file;
      let fullWorkbook: { file: string; bytes: number; limitBytes: number } | undefined;
      if (workbook.bytes > config.email.maxAttachmentBytes) {
        fullWorkbook = { file, bytes: workbook.bytes, limitBytes: config.email.maxAttachmentBytes };
        attachment = path.join(config.reports.outDir, `pinrecon-${options.period}-summary.xlsx`);
        await writeWorkbook(warehouse, facts, {
          file: attachment,
          generatedAt,
          paperSize: config.reports.paperSize,
          summaryOnlyOf: { file, bytes: workbook.bytes },
        });
        output.warn(
          `the workbook (${workbook.bytes} bytes) exceeds email.maxAttachmentBytes ` +
            `(${config.email.maxAttachmentBytes}): attaching the summary-only ${attachment}`,
        );
      }
      const message = composeReportEmail(config.email, facts, {
        attachment,
        rowsByTitle: workbook.rowsByTitle,
        fullWorkbook,
      });
      const emlFile = options.dryRun ? path.join(config.reports.outDir, `pinrecon-${options.period}.eml`) : undefined;
      let delivery: Delivery;
      try {
        delivery = await deliverReportEmail(config.email, message, {
          emlFile,
          retryBaseDelayMs: options.retryBaseDelayMs,
          tls: options.tls,
          onRetry: (attempt, reason, delayMs) =>
            output.warn(
              `sending the email failed (attempt ${attempt}): ${reason}; ` +
                `trying again in ${delayMs < 1000 ? `${delayMs} ms` : `${Math.round(delayMs / 1000)} s`}`,
            ),
        });
      } catch (error) {
        if (!(error instanceof JobError)) throw error;
        throw new JobError(
          error.message,
          `The workbook is on disk at ${file}. ${error.hint ?? ''} (pinrecon report --period ${options.period} ` +
            `--email)`,
          {
            cause: error,
          },
        );
      }
      output.info(
        delivery.eml ? `dry run: wrote the email to ${delivery.eml}` : `sent the report to ${delivery.to.join(', ')}`,
      );
      summary.email = { ...delivery, attachment, summaryOnly: fullWorkbook !== undefined };
      run.details.email = summary.email;
      return summary;
    },
    options.parentRunId,
  );
}
