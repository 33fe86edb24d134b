/**
 * `findings import` of a workbook holding 100,000 decided findings. The workbook is a real one: the period's
 * 100,000 findings (generated in DuckDB with SQL, generators/findings.ts, spread over the finding sheets) are given
 * decisions, the workbook is written by the report's writer, then the decisions are taken out of the database
 * again, so the import reads, checks and records all 100,000. Targets: under 20 s, peak RSS under 1 GiB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Warehouse } from '../core/warehouse.js';
import type { Output } from '../core/output.js';
import { importDecisions } from '../pipelines/decisions/findings.js';
import { loadReportFacts } from '../reports/report-facts.js';
import { loadSignoffFacts } from '../pipelines/close/signoffs.js';
import { writeWorkbook } from '../reports/workbook.js';
import { insertDecidedFindings } from './generators/findings.js';
import { peakRssMiB, timed, type BenchResult } from './harness.js';

export const name = 'findings import: 100,000 decided findings';

const findings = 100_000;
const period = '2025-03';
const timezone = 'America/Sao_Paulo';

const silent: Output = {
  json: false,
  isTerminal: false,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  result: () => undefined,
  document: () => undefined,
  progress: () => undefined,
  clearProgress: () => undefined,
};

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-bench-findings-'));
  const warehouse = await Warehouse.open(path.join(dir, 'bench.duckdb'), { timezone });
  try {
    await insertDecidedFindings(warehouse, period, findings);
    const facts = await loadReportFacts(warehouse, {
      period,
      timezone,
      signoff: await loadSignoffFacts(warehouse, period, timezone),
    });
    const file = path.join(dir, `pinrecon-${period}.xlsx`);
    await writeWorkbook(warehouse, facts, { file });
    // As before the controller decided: the workbook holds the decisions, the database none.
    await warehouse.run(
      'UPDATE recon_exceptions SET decision = NULL, decision_note = NULL, owner = NULL, expected_clear_by = NULL; ' +
        'CHECKPOINT;',
    );

    const { seconds, value: result } = await timed(() => importDecisions(warehouse, file, { by: 'bench' }, silent));
    const stored = await warehouse.one<{ n: string }>(
      'SELECT count(*) AS n FROM recon_decisions WHERE superseded_at IS NULL',
    );
    const peak = peakRssMiB();
    return {
      metrics: {
        findings,
        recorded: result.recorded.length,
        refused: result.refused.length,
        seconds: Number(seconds.toFixed(1)),
        rows_per_s: Math.round(result.recorded.length / seconds),
      },
      targets: [
        {
          label: 'every decision recorded',
          measured: `${result.recorded.length} recorded, ${stored?.n} current`,
          ok: result.recorded.length === findings && Number(stored?.n) === findings,
        },
        { label: 'import in < 20 s', measured: `${seconds.toFixed(1)} s`, ok: seconds < 20 },
        { label: 'peak RSS < 1 GiB', measured: `${Math.round(peak)} MiB`, ok: peak < 1024 },
      ],
      notes:
        'The workbook is written by the report writer (6 finding sheets, decision columns filled); the import reads ' +
        'it part by part through the ZIP directory, ' +
        'checks every row against recon_exceptions and records the decisions in one transaction. Peak RSS includes ' +
        'writing the workbook and DuckDB.',
    };
  } finally {
    warehouse.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
