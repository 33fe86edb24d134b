/**
 * A period's sign-offs as read from `period_signoffs` and `recon_signoff_changes` — the active one, all of them,
 * the sign-off state (signed, changed since, what changed and by how much) and the sign-off part of the close facts.
 * `close`, `reconcile`, decisions, actions and the report read sign-offs here; the report is given them (issue 27:
 * reports/ reads no sign-off itself).
 */
import type { CloseFacts } from '../../reports/close-facts.js';
import type { SignoffFacts } from '../../reports/signoffs.js';
import { sha256Hex } from '../../core/signatures.js';
import type { Warehouse } from '../../core/warehouse.js';
import { formatZonedTime } from '../../core/zoned-time.js';

export interface Signoff {
  signoffId: string;
  period: string;
  signedBy: string;
  /** Local wall-clock time in the configured zone, 'YYYY-MM-DD HH:MM'. */
  signedAt: string;
  /** signedAt as shown to a person, with its offset and zone (core/zoned-time.ts). */
  signedAtZoned: string;
  note: string | null;
  runId: string;
  asOf: string;
  findings: number;
  undecided: number;
  contentSha256: string;
  reopenedAt: string | null;
  /** reopenedAt as shown to a person, with its offset and zone. */
  reopenedAtZoned: string | null;
  reopenedBy: string | null;
  reopenReason: string | null;
  /** Findings still `investigating` when signed (close --allow-open; issue 28): the sign-off lists them. */
  openFindings: string[];
}

export interface SignoffChangeCounts {
  new: number;
  cleared: number;
  changed: number;
}

/** A period's sign-off as its latest reconciliation sees it. */
export interface SignoffState {
  status: 'unsigned' | 'signed' | 'changed_since_signoff';
  signoff?: Signoff;
  changes: SignoffChangeCounts;
  /** Bridge amount now minus as signed, per currency with a change (exact decimal strings). */
  deltas: { currencyCode: string | null; amountDelta: string }[];
  /** Actions executed or exported after the active sign-off (actions execute --after-signoff; issue 28). */
  actionsAfterSignoff?: number;
}

const signoffColumns = `signoff_id, period, signed_by,
  strftime(timezone($tz, signed_at), '%Y-%m-%d %H:%M') AS signed_at, note, run_id,
  strftime(as_of, '%Y-%m-%d') AS as_of, findings, undecided, content_sha256, open_findings,
  strftime(timezone($tz, reopened_at), '%Y-%m-%d %H:%M') AS reopened_at, reopened_by, reopen_reason,
  epoch_ms(signed_at)::VARCHAR AS signed_at_ms, epoch_ms(reopened_at)::VARCHAR AS reopened_at_ms,
  $tz::VARCHAR AS time_zone`;

/** The period's sign-off that is not reopened, if any. */
export async function activeSignoff(
  warehouse: Warehouse,
  period: string,
  timezone = 'UTC',
): Promise<Signoff | undefined> {
  return activeOf(await signoffsOf(warehouse, period, timezone));
}

/** The active one of a period's sign-offs as signoffsOf gives them (latest first): the latest not reopened. */
export function activeOf(signoffs: readonly Signoff[]): Signoff | undefined {
  return signoffs.find((s) => s.reopenedAt === null);
}

/** Every sign-off of the period, latest first (reopened ones included). */
export async function signoffsOf(warehouse: Warehouse, period: string, timezone: string): Promise<Signoff[]> {
  const rows = await warehouse.all<Record<string, string | null>>(
    `SELECT ${signoffColumns.replaceAll('$tz', '$2')} FROM period_signoffs WHERE period = $1 ORDER BY signed_at DESC`,
    [period, timezone],
  );
  return rows.map(toSignoff);
}

function toSignoff(r: Record<string, string | null>): Signoff {
  const zoned = (ms: string | null | undefined) => (ms ? formatZonedTime(Number(ms), r.time_zone!) : null);
  return {
    signoffId: r.signoff_id!,
    period: r.period!,
    signedBy: r.signed_by!,
    signedAt: r.signed_at!,
    signedAtZoned: zoned(r.signed_at_ms)!,
    note: r.note ?? null,
    runId: r.run_id!,
    asOf: r.as_of!,
    findings: Number(r.findings),
    undecided: Number(r.undecided),
    contentSha256: r.content_sha256!,
    reopenedAt: r.reopened_at ?? null,
    reopenedAtZoned: zoned(r.reopened_at_ms),
    reopenedBy: r.reopened_by ?? null,
    reopenReason: r.reopen_reason ?? null,
    openFindings: r.open_findings ? (JSON.parse(r.open_findings) as string[]) : [],
  };
}

/**
 * The sign-off state of a period from a `recon_signoff_changes` table (the persistent one by default). `signoffs`:
 * the period's sign-offs as signoffsOf read them in `timezone`, when the caller has them (issue 27: reconcile read
 * them three to five times).
 */
export async function signoffState(
  warehouse: Warehouse,
  period: string,
  changesTable = 'recon_signoff_changes',
  timezone = 'UTC',
  signoffs?: readonly Signoff[],
): Promise<SignoffState> {
  const signoff = activeOf(signoffs ?? (await signoffsOf(warehouse, period, timezone)));
  const changes: SignoffChangeCounts = { new: 0, cleared: 0, changed: 0 };
  if (!signoff) return { status: 'unsigned', changes, deltas: [] };
  for (const row of await warehouse.all<{ change: keyof SignoffChangeCounts; n: string }>(
    `SELECT change, count(*) AS n FROM ${changesTable} WHERE period = $1 AND signoff_id = $2 GROUP BY 1`,
    [period, signoff.signoffId],
  )) {
    changes[row.change] = Number(row.n);
  }
  const deltas = (
    await warehouse.all<{ currency_code: string | null; delta: string }>(
      `SELECT currency_code, sum(amount_delta)::VARCHAR AS delta FROM ${changesTable}
       WHERE period = $1 AND signoff_id = $2
       GROUP BY 1 ORDER BY 1 NULLS LAST`,
      [period, signoff.signoffId],
    )
  ).map((r) => ({ currencyCode: r.currency_code, amountDelta: r.delta }));
  const actionsAfterSignoff = await actionsSince(warehouse, period, signoff.signoffId);
  const changed = changes.new + changes.cleared + changes.changed + actionsAfterSignoff > 0;
  return { status: changed ? 'changed_since_signoff' : 'signed', signoff, changes, deltas, actionsAfterSignoff };
}

/** Issue 28: actions of the period carried out (executed, verified) after the sign-off was signed. */
async function actionsSince(warehouse: Warehouse, period: string, signoffId: string): Promise<number> {
  const row = await warehouse.one<{ n: string }>(
    `SELECT count(DISTINCT e.action_id)::VARCHAR AS n FROM recon_action_events e
     JOIN recon_actions a ON a.action_id = e.action_id
     JOIN period_signoffs s ON s.signoff_id = $2
     WHERE a.period = $1 AND e.to_status IN ('executed', 'verified') AND e."at" > s.signed_at`,
    [period, signoffId],
  );
  return Number(row?.n ?? 0);
}

/**
 * The sign-off part of the close facts, read now (not from recon_summary: a close or reopen since the last
 * reconcile must show at once): the active sign-off of `state` (signoffState) and what changed since it, or the
 * latest sign-off if reopened. `signoffs`: as signoffState's.
 */
export async function signoffFacts(
  warehouse: Warehouse,
  period: string,
  state: SignoffState,
  timezone: string,
  signoffs?: readonly Signoff[],
): Promise<SignoffFacts> {
  const latest = state.signoff ? undefined : (signoffs ?? (await signoffsOf(warehouse, period, timezone)))[0];
  const s = state.signoff;
  return {
    status: state.status,
    ...(s
      ? {
          signoff: {
            signoffId: s.signoffId,
            signedBy: s.signedBy,
            signedAt: s.signedAt,
            signedAtZoned: s.signedAtZoned,
            note: s.note,
            openFindings: s.openFindings,
          },
        }
      : {}),
    ...(latest?.reopenedAt
      ? {
          reopened: {
            signedBy: latest.signedBy,
            signedAtZoned: latest.signedAtZoned,
            reopenedBy: latest.reopenedBy ?? '',
            reopenedAtZoned: latest.reopenedAtZoned ?? latest.reopenedAt,
            reason: latest.reopenReason,
          },
        }
      : {}),
    changes: state.changes,
    deltas: state.deltas,
    ...(state.actionsAfterSignoff ? { actionsAfterSignoff: state.actionsAfterSignoff } : {}),
    ...(s ? await sealFacts(warehouse, s.signoffId) : {}),
  };
}

/** Issue 28: the active sign-off's seal as the email states it (its sha256 and the signer's key fingerprint). */
async function sealFacts(warehouse: Warehouse, signoffId: string): Promise<Pick<CloseFacts, 'seal'>> {
  const row = await warehouse.one<{ seal: string | null; signer: string | null; signed: boolean }>(
    `SELECT seal, signer_key_sha256 AS signer, seal_signature IS NOT NULL AS signed FROM period_signoffs
     WHERE signoff_id = $1`,
    [signoffId],
  );
  if (!row?.seal) return {};
  const signerKeySha256 = row.signed ? row.signer : null;
  return { seal: { sha256: sha256Hex(Buffer.from(row.seal, 'utf8')), signerKeySha256 } };
}

/** The sign-off part of the close facts as the report shows it now: from the persistent recon_signoff_changes. */
export async function loadSignoffFacts(warehouse: Warehouse, period: string, timezone: string): Promise<SignoffFacts> {
  const state = await signoffState(warehouse, period, 'recon_signoff_changes', timezone);
  return signoffFacts(warehouse, period, state, timezone);
}
