/**
 * `verify`'s walk of a period's two hash chains (issue 28): recon_decisions and recon_action_events. Each row's
 * position, hash (of its canonical form), link to the row before, and signature (Ed25519 over the same bytes, by
 * a known key) are checked in order; the first break is named at its row. In attested mode (keys known) an
 * unsigned decision or approval is a break: an insider who recomputes the chain after an edit cannot sign it. The
 * materiality rule's acceptances carry no key, so each must name a finding the rule puts under the threshold.
 */
import {
  canonicalActionEvent,
  chainedActionEventColumns,
  toChainedActionEvent,
  type StoredActionEventRow,
} from '../../core/action-event-chain.js';
import {
  canonicalDecision,
  chainedDecisionColumns,
  toChainedDecision,
  type StoredDecisionRow,
} from '../../core/decision-chain.js';
import { sameName, sha256Hex, verifyCanonical } from '../../core/signatures.js';
import type { Warehouse } from '../../core/warehouse.js';
import { allUnderMateriality, materialityActor, type MaterialityThresholds } from './materiality-rule.js';

/** A public key verify knows: from config `people` (with the name) or `--public-keys FILE` (name when matched). */
export interface KnownKey {
  name: string | null;
  publicKeyPem: string;
  fingerprint: string;
}

export interface ChainMismatch {
  kind: 'decision' | 'action_event';
  subject: string;
  reason: string;
}

export interface ChainFacts<Row> {
  rows: Row[];
  head: { position: number; sha256: string } | null;
  signed: number;
}

type ChainRow = {
  chain_position: string | null;
  row_sha256: string | null;
  prev_sha256: string | null;
  signature: string | null;
  signer_key_sha256: string | null;
};

/** Where a walk reports a break (verify's list of every mismatch). */
type Mismatches = { push(...items: ChainMismatch[]): number };

interface ChainRules<Row extends ChainRow> {
  kind: ChainMismatch['kind'];
  canonical(row: Row): string;
  name(row: Row, index: number): string;
  /** Who the row says acted (checked against the signing key's person when the name is known). */
  actor(row: Row): string;
  /** Why an unsigned row breaks the chain in attested mode; null when it may stand unsigned. */
  unsignedBreak(row: Row): string | null;
}

export type DecisionRow = StoredDecisionRow & ChainRow;
export type ActionEventRow = StoredActionEventRow;

export async function walkDecisionChain(
  warehouse: Warehouse,
  period: string,
  keys: KnownKey[] | null,
  mismatches: Mismatches,
  materiality: MaterialityThresholds,
): Promise<ChainFacts<DecisionRow>> {
  const rows = await warehouse.all<DecisionRow>(
    `SELECT ${chainedDecisionColumns}, signature, signer_key_sha256 FROM recon_decisions WHERE period = $1
     ORDER BY chain_position NULLS LAST, rowid`,
    [period],
  );
  // Issue 30: an acceptance by the materiality rule is no person's act and has no key; what proves it is the rule
  // itself, asked again under the config's thresholds (a row typed under the rule's name for a material finding
  // would otherwise pass unsigned).
  const underRule = keys === null ? new Set<string>() : await allUnderMateriality(warehouse, period, materiality);
  return walk(rows, keys, mismatches, {
    kind: 'decision',
    canonical: (row) => canonicalDecision(toChainedDecision(row)),
    name: (row, index) =>
      `recon_decisions row ${row.chain_position ?? `#${index + 1} (no chain position)`} of ${period}: ` +
      `finding ${row.finding_id}, ${row.decision} by ${row.decided_by}`,
    actor: (row) => row.decided_by,
    unsignedBreak: (row) => {
      if (row.decided_by !== materialityActor || row.decision !== 'accepted') return personUnsigned;
      if (underRule.has(row.finding_id)) return null;
      return (
        'it is not signed and names the materiality rule, but the rule does not accept its finding: its money at ' +
        'issue is not within reconciliation.materiality of its currency (or it has an exposure, or it is gone), ' +
        "so it was recorded by someone else under the rule's name, or the finding or the threshold changed since"
      );
    },
  });
}

export async function walkActionEventChain(
  warehouse: Warehouse,
  period: string,
  keys: KnownKey[] | null,
  mismatches: Mismatches,
): Promise<ChainFacts<ActionEventRow>> {
  const rows = await warehouse.all<ActionEventRow>(
    `SELECT ${chainedActionEventColumns} FROM recon_action_events
     WHERE period = $1 OR (period IS NULL AND action_id IN (SELECT action_id FROM recon_actions WHERE period = $1))
     ORDER BY chain_position NULLS LAST, rowid`,
    [period],
  );
  return walk(rows, keys, mismatches, {
    kind: 'action_event',
    canonical: (row) => canonicalActionEvent(toChainedActionEvent(row)),
    name: (row, index) =>
      `recon_action_events row ${row.chain_position ?? `#${index + 1} (no chain position)`} of ${period}: ` +
      `action ${row.action_id} ${row.from_status ?? '(new)'} → ${row.to_status} by ${row.by}`,
    actor: (row) => row.by,
    // What execute and export settle by themselves is not an act of a person; an approval is.
    unsignedBreak: (row) => (row.to_status === 'approved' ? personUnsigned : null),
  });
}

const personUnsigned =
  'it is not signed: people are configured, so it was recorded without a key or its signature was removed';

function walk<Row extends ChainRow>(
  rows: Row[],
  keys: KnownKey[] | null,
  mismatches: Mismatches,
  rules: ChainRules<Row>,
): ChainFacts<Row> {
  const byFingerprint = new Map((keys ?? []).map((k) => [k.fingerprint, k]));
  let previous: string | null = null;
  let signed = 0;
  rows.forEach((row, index) => {
    const fail = (reason: string) => mismatches.push({ kind: rules.kind, subject: rules.name(row, index), reason });
    const canonical = rules.canonical(row);
    if (row.row_sha256 === null || row.chain_position === null) {
      fail('it is not chained (no row_sha256): it was written outside pinrecon');
    } else if (Number(row.chain_position) !== index + 1) {
      fail(
        `it is at chain position ${row.chain_position}, expected ${index + 1}: ` +
          'a row before it was removed or reordered',
      );
    } else if (sha256Hex(Buffer.from(canonical, 'utf8')) !== row.row_sha256) {
      fail('its content does not hash to its row_sha256: it was changed after it was recorded');
    } else if (row.prev_sha256 !== previous) {
      fail('its prev_sha256 is not the row_sha256 of the row before it: the chain was rewritten');
    }
    previous = row.row_sha256;
    if (row.signature === null) {
      const reason = keys === null ? null : rules.unsignedBreak(row);
      if (reason !== null) fail(reason);
      return;
    }
    signed++;
    if (keys === null) return; // unattested: nothing to check a signature with (verify says so)
    const key = row.signer_key_sha256 ? byFingerprint.get(row.signer_key_sha256) : undefined;
    if (!key) {
      fail(`it is signed by a key that is not registered (fingerprint ${row.signer_key_sha256 ?? 'missing'})`);
    } else if (!verifyCanonical(key.publicKeyPem, canonical, row.signature)) {
      fail(
        `its signature (key ${key.fingerprint.slice(0, 16)}…) does not match its content: ` +
          'it was changed after it was signed',
      );
    } else if (key.name !== null && !sameName(key.name, rules.actor(row))) {
      fail(`it names ${rules.actor(row)}, but it is signed with the key of ${key.name}`);
    }
  });
  const last = rows.at(-1);
  const head =
    last && last.row_sha256 !== null && last.chain_position !== null
      ? { position: Number(last.chain_position), sha256: last.row_sha256 }
      : null;
  return { rows, head, signed };
}
