/**
 * The approval policy in force (issue 34 item 4): approvers, limits per currency (ISO upper case) and people with
 * their keys' fingerprints and roles, as one canonical JSON whose sha256 each approval records, so an approval made
 * under a looser config than the team's shows in `verify` and the audit pack.
 */
import type { Config } from '../../config/schema.js';
import { keyFingerprint, normalisedName, sha256Hex } from '../../core/signatures.js';
import type { Warehouse } from '../../core/warehouse.js';

export interface ApprovalPolicy {
  /** The canonical JSON (keys sorted, lists sorted): what `approval_policies.policy` holds. */
  json: string;
  sha256: string;
  /** approvalLimit with its currencies in ISO upper case. */
  limits: Map<string, number>;
}

/** A currency code as the policy compares it: trimmed, ISO upper case ("brl" and "BRL" are one currency). */
export function isoCurrency(code: string | null | undefined): string | null {
  const text = code?.trim().toUpperCase();
  return text ? text : null;
}

export function approvalPolicy(config: Pick<Config, 'actions' | 'people'>): ApprovalPolicy {
  const limits = new Map<string, number>();
  for (const [currency, limit] of Object.entries(config.actions.approvalLimit)) {
    const code = isoCurrency(currency)!;
    // Two spellings of one currency: the stricter limit holds.
    limits.set(code, Math.min(limit, limits.get(code) ?? Number.POSITIVE_INFINITY));
  }
  const statement = {
    version: 'pinrecon.approval_policy.v1',
    approvalLimit: Object.fromEntries([...limits.entries()].sort(([a], [b]) => a.localeCompare(b))),
    approvers: [...new Set(config.actions.approvers.map(normalisedName))].sort(),
    people: config.people
      .map((p) => ({ name: p.name, key_sha256: keyFingerprint(p.publicKey), roles: [...new Set(p.roles)].sort() }))
      .sort((a, b) => a.key_sha256.localeCompare(b.key_sha256)),
  };
  const json = JSON.stringify(statement);
  return { json, sha256: sha256Hex(json), limits };
}

/** Keeps the policy's text beside its hash (once), in the caller's transaction. */
export async function recordPolicy(warehouse: Warehouse, policy: ApprovalPolicy): Promise<void> {
  await warehouse.run(
    `INSERT INTO approval_policies (policy_sha256, policy, first_used_at) VALUES ($1, $2, now()) ON CONFLICT DO ` +
      `NOTHING`,
    [policy.sha256, policy.json],
  );
}

/** Whether `amount` (exact decimal text, up to 4 decimals) is above `limit` in absolute value: no float sums. */
export function aboveLimit(amount: string | null, limit: number): boolean {
  const scaled = (text: string): bigint => {
    const [whole, fraction = ''] = text.replace(/^[-+]/, '').split('.');
    return BigInt(`${whole || '0'}${fraction.padEnd(4, '0').slice(0, 4)}`);
  };
  return scaled(amount ?? '0') > scaled(limit.toFixed(4));
}

/** A policy approvals of a period were made under, with how many (what `verify` and the audit pack list). */
export interface PolicyUsed {
  policySha256: string;
  /** The policy's canonical JSON (null when approval_policies lost it: itself a finding). */
  policy: string | null;
  approvals: number;
}

/** The approval policies the period's approval events record, most used first (issue 34 item 4). */
export async function policiesUsed(warehouse: Warehouse, period: string): Promise<PolicyUsed[]> {
  const rows = await warehouse.all<{ policy_sha256: string; policy: string | null; approvals: string }>(
    `SELECT e.policy_sha256, any_value(p.policy) AS policy, count(*)::VARCHAR AS approvals
     FROM recon_action_events e LEFT JOIN approval_policies p USING (policy_sha256)
     WHERE e.period = $1 AND e.to_status = 'approved' AND e.policy_sha256 IS NOT NULL
     GROUP BY e.policy_sha256 ORDER BY count(*) DESC, e.policy_sha256`,
    [period],
  );
  return rows.map((r) => ({ policySha256: r.policy_sha256, policy: r.policy, approvals: Number(r.approvals) }));
}
