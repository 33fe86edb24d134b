/**
 * The close facts the report shows: the verdict its reconciliation stored, the reasons it is incomplete, and the
 * sign-off part it is given (read by pipelines/close/signoffs.ts; issue 27: reports/ reads no sign-off itself).
 * reports/close-facts.ts says them.
 */
import type { Warehouse } from '../core/warehouse.js';
import type { CloseFacts } from './close-facts.js';

/** The period's completeness as a job checked it (pipelines/extract/completeness.ts): what the close facts need. */
export interface CheckedCompleteness {
  complete: boolean;
  reasons: string[];
  commands: string[];
}

/** The sign-off part of the close facts: the state, the active (or reopened) sign-off, what changed, the seal. */
export type SignoffFacts = Pick<
  CloseFacts,
  'status' | 'signoff' | 'reopened' | 'changes' | 'deltas' | 'actionsAfterSignoff' | 'seal'
>;

/**
 * The report's view of closing the period: the verdict its reconciliation stored, made `incomplete` if the job
 * found the extraction incomplete now (`checked`: a later failed window), and the sign-off state read now
 * (`signoff`). Without `checked` (a workbook written outside a job) the stored verdict and reasons stand.
 */
export async function loadCloseFacts(
  warehouse: Warehouse,
  period: string,
  signoff: SignoffFacts,
  checked?: CheckedCompleteness,
): Promise<CloseFacts> {
  const stored = await warehouse.one<{ verdict: string | null; reasons: string | null }>(
    `SELECT any_value(verdict) AS verdict, any_value(incomplete_reasons) AS reasons FROM recon_summary
     WHERE period = $1`,
    [period],
  );
  const storedReasons = stored?.reasons ? (JSON.parse(stored.reasons) as string[]) : [];
  const complete = checked?.complete ?? true;
  const incomplete = !complete || stored?.verdict === 'incomplete';
  const rerun = checked ? ` (extracted since: run pinrecon reconcile --period ${period} again)` : '';
  return {
    verdict: incomplete ? 'incomplete' : (stored?.verdict ?? null),
    incompleteReasons: complete ? storedReasons.map((r) => `when reconciled: ${r}${rerun}`) : checked!.reasons,
    fillCommands: checked?.commands ?? [],
    ...signoff,
  };
}
