/**
 * The lines of a claim (issue 30): one per approved claim action where the provider charged more than agreed
 * (`claim`), or, listed apart and never netted into a claim, where it charged less (`undercharge`). A line's
 * `line_id` is its action, so a repeat export knows what it sent. Dates are the provider's, in the configured zone.
 */
import type { Config } from '../../config/schema.js';
import { maskedLast4Sql, maskPinSql, textMask } from '../../core/masking.js';
import { sqlString } from '../../core/sql.js';
import type { Warehouse } from '../../core/warehouse.js';

export type ClaimKind = 'claim' | 'undercharge';

/** One line: money as exact decimal text, `provider_date` YYYY-MM-DD. */
export type ClaimLine = Record<string, string | null> & { line_id: string; action_id: string; finding_id: string };

export interface ClaimLines {
  lines: ClaimLine[];
  /** Every action the export covers (its line may have been exported before). */
  actions: string[];
  /** Claim export only: claims of no difference (nothing to ask for): covered, with no line. */
  empty: string[];
}

export async function claimLines(
  warehouse: Warehouse,
  config: Config,
  period: string,
  kind: ClaimKind,
): Promise<ClaimLines> {
  const tz = sqlString(config.timezone);
  const sign = kind === 'claim' ? '> 0' : '< 0';
  const lines = await warehouse.all<ClaimLine>(
    `SELECT a.action_id AS line_id, a.action_id, a.finding_id, a.transaction_id::VARCHAR AS transaction_id,
            a.partner_reference,
            strftime(timezone(${tz}, coalesce(e.transaction_at, s.transaction_at)), '%Y-%m-%d') AS provider_date,
            concat_ws(' ', coalesce(e.product_id, s.product_id)::VARCHAR, s.product_name) AS product,
            e.provider_value::VARCHAR AS charged_cost, e.ledger_value::VARCHAR AS expected_cost,
            a.amount::VARCHAR AS difference, a.currency_code AS currency,
            coalesce(${maskedLast4Sql('e.key_last4', textMask)}, ${maskPinSql('s.key', textMask)}) AS key_last4,
            a.note, a.exception_type
     FROM recon_actions a
     LEFT JOIN recon_exceptions e ON e.finding_id = a.finding_id AND e.period = a.period
     LEFT JOIN sales s ON s.transaction_id = a.transaction_id
     WHERE a.period = $1 AND a.kind = 'claim' AND a.status IN ('approved', 'executed') AND a.amount ${sign}
     ORDER BY a.currency_code NULLS LAST, provider_date NULLS LAST, a.action_id`,
    [period],
  );
  // A claim of no difference asks for nothing: the claim export takes it off the approved list without a line.
  const empty =
    kind === 'claim'
      ? (
          await warehouse.all<{ action_id: string }>(
            `SELECT action_id FROM recon_actions
             WHERE period = $1 AND kind = 'claim' AND status IN ('approved', 'executed') AND coalesce(amount, 0) = 0
             ORDER BY action_id`,
            [period],
          )
        ).map((r) => r.action_id)
      : [];
  return { lines, actions: [...lines.map((l) => l.action_id), ...empty], empty };
}
