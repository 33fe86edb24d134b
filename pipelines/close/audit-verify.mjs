/**
 * verify.mjs of a pinrecon audit pack (issue 28): run `node verify.mjs` in the unzipped pack, with Node 20 or newer
 * and nothing else (node: built-ins only, no install, no pinrecon). It recomputes the decision and action-event hash
 * chains from decisions.csv and action-events.csv, checks every signature with public-keys.pem, the seal (seal.json,
 * seal.sig) and what it states (the findings' content hash, the manifest's sha256, both chain heads), that
 * approval-policies.json holds the text of each approval policy the signed approvals record (issue 34 item 4), and
 * that README.txt is the one these members give. Exit 0 when all of it holds; exit 1 naming the first member and
 * row that does not. pinrecon's `audit-pack` writes the pack with this file's `csvText`, `policiesText` and
 * `readmeText`, so they agree.
 */
import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const members = [
  'seal.json', 'seal.sig', 'public-keys.pem', 'decisions.csv', 'actions.csv', 'action-events.csv', 'findings.csv',
  'approval-policies.json', 'manifest.json', 'README.txt', 'verify.mjs',
];

export const decisionColumns = [
  'period', 'chain_position', 'finding_id', 'decision', 'note', 'owner', 'expected_clear_by', 'decided_by',
  'decided_at', 'source', 'prev_sha256', 'row_sha256', 'signature', 'signer_key_sha256', 'superseded_at',
];
export const eventColumns = [
  'period', 'chain_position', 'action_id', 'at', 'by', 'from_status', 'to_status', 'detail', 'policy_sha256',
  'prev_sha256', 'row_sha256', 'signature', 'signer_key_sha256',
];
export const actionColumns = [
  'action_id', 'period', 'finding_id', 'kind', 'transaction_id', 'partner_reference', 'amount', 'currency_code',
  'status', 'decision', 'decided_by', 'decision_sha256', 'proposed_by', 'approved_by', 'row_sha256',
];
export const findingColumns = [
  'finding_id', 'exception_type', 'partner_reference', 'transaction_id', 'currency_code', 'difference', 'decision',
  'decision_note', 'signed_json',
];

/** The first thing that does not hold: the member, where in it, and why. */
class Failure extends Error {
  constructor(member, where, reason) {
    super(`${member}${where ? ` ${where}` : ''}: ${reason}`);
    this.member = member;
  }
}

export const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** Names compared as pinrecon compares them (core/signatures.ts sameName): a key's label respelled is the person. */
const normalised = (name) => name.normalize('NFKC').toLocaleLowerCase('und').replace(/\s+/gu, ' ').trim();
const sameName = (a, b) => a !== null && b !== null && normalised(a) === normalised(b);

/**
 * CSV as the pack writes it (RFC 4180, "\n" line ends): a field with a comma, quote or line break, or an empty
 * text, is quoted; an empty unquoted field is NULL — so a text "" and a missing value stay apart.
 */
export function csvText(header, rows) {
  const field = (value) => {
    if (value === null || value === undefined) return '';
    const text = String(value);
    return text === '' || /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [header, ...rows].map((row) => `${row.map(field).join(',')}\n`).join('');
}

export function parseCsv(text, member) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  const end = () => {
    row.push(quoted || field !== '' ? field : null);
    field = '';
    quoted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else inQuotes = false;
    } else if (c === '"') {
      if (field !== '' || quoted) throw new Failure(member, `row ${rows.length}`, 'a quote inside a field');
      inQuotes = quoted = true;
    } else if (c === ',') end();
    else if (c === '\n') {
      end();
      rows.push(row);
      row = [];
    } else if (c === '\r') throw new Failure(member, `row ${rows.length}`, 'a carriage return outside quotes');
    else field += c;
  }
  if (inQuotes || field !== '' || quoted || row.length > 0)
    throw new Failure(member, `row ${rows.length}`, 'it does not end with a complete line');
  return rows;
}

/** A CSV member as objects, its header checked. Rows are numbered from 1 (the line after the header). */
function table(dir, member, columns) {
  const [header, ...rows] = parseCsv(readFileSync(path.join(dir, member), 'utf8'), member);
  if (!header || header.join(',') !== columns.join(','))
    throw new Failure(member, 'header', `expected ${columns.join(',')}`);
  return rows.map((cells, index) => {
    if (cells.length !== columns.length)
      throw new Failure(member, `row ${index + 1}`, `${cells.length} fields, expected ${columns.length}`);
    return Object.fromEntries(columns.map((c, i) => [c, cells[i]]));
  });
}

/** approval-policies.json as the pack writes it: each policy approvals recorded, most used first, then by sha256. */
export function policiesText(policies) {
  const order = (a, b) => b.approvals - a.approvals || (a.policy_sha256 < b.policy_sha256 ? -1 : 1);
  const entries = policies.map((p) => ({ policy_sha256: p.policy_sha256, approvals: p.approvals, policy: p.policy }));
  return `${JSON.stringify(entries.sort(order), null, 2)}\n`;
}

/** Each policy_sha256 the approvals sign is listed once, with its count, and its policy's compact JSON hashes to it. */
function checkPolicies(dir, events) {
  const member = 'approval-policies.json';
  const text = readFileSync(path.join(dir, member), 'utf8');
  let listed;
  try {
    listed = JSON.parse(text);
  } catch (error) {
    throw new Failure(member, '', `not JSON (${error.message})`);
  }
  const used = new Map();
  for (const e of events.filter((e) => e.to_status === 'approved' && e.policy_sha256 !== null))
    used.set(e.policy_sha256, (used.get(e.policy_sha256) ?? 0) + 1);
  const policyOf = new Map((Array.isArray(listed) ? listed : []).map((p) => [p?.policy_sha256, p?.policy ?? null]));
  const expected = [...used].map(([sha, approvals]) => ({ policy_sha256: sha, approvals, policy: policyOf.get(sha) }));
  if (policiesText(expected) !== text)
    throw new Failure(member, '', "it does not list each policy of action-events.csv's approvals once, with its count");
  for (const p of expected)
    if (p.policy === null || sha256(Buffer.from(JSON.stringify(p.policy), 'utf8')) !== p.policy_sha256)
      throw new Failure(member, `policy ${p.policy_sha256}`, 'its text is missing or does not hash to it');
  return expected.length;
}

/** The seal statement's canonical bytes (pinrecon.seal.v1). */
export function sealCanonical(seal) {
  const head = (h) => ({ position: h?.position, sha256: h?.sha256 });
  return JSON.stringify({
    version: seal.version,
    period: seal.period,
    signoff_id: seal.signoff_id,
    signed_by: seal.signed_by,
    signed_at: seal.signed_at,
    content_sha256: seal.content_sha256,
    decision_chain_head: head(seal.decision_chain_head),
    action_event_chain_head: head(seal.action_event_chain_head),
    manifest_sha256: seal.manifest_sha256,
  });
}

/** A chain row's canonical form (core/decision-chain.ts, core/action-event-chain.ts): the columns before row_sha256. */
const canonicalOf = (version, columns) => (r) =>
  JSON.stringify([version, ...columns.slice(0, columns.indexOf('row_sha256')).map((c) =>
    c === 'chain_position' ? Number(r[c]) : r[c])]);
const decisionCanonical = canonicalOf('pinrecon.decision.v1', decisionColumns);
const eventCanonical = canonicalOf('pinrecon.action_event.v1', eventColumns);

/** The checksum of an actions.csv row: sha256 of the JSON array of its other fields (not a signature). */
export const actionChecksum = (row) => sha256(JSON.stringify(actionColumns.slice(0, -1).map((c) => row[c] ?? null)));

/** public-keys.pem: each key under a line `# <name> — sha256 <fingerprint>`. */
export function pemWithLabels(keys) {
  return keys.map((k) => `# ${k.name} — sha256 ${k.fingerprint}\n${k.publicKeyPem.trim()}\n`).join('');
}

function readKeys(dir) {
  const text = readFileSync(path.join(dir, 'public-keys.pem'), 'utf8');
  const labelled = [
    ...text.matchAll(
      /^# (.*) — sha256 ([0-9a-f]{64})\n(-----BEGIN PUBLIC KEY-----\n[\s\S]*?\n-----END PUBLIC KEY-----)\n/gm,
    ),
  ];
  const blocks = text.split('-----BEGIN PUBLIC KEY-----').length - 1;
  if (labelled.length !== blocks || labelled.map((m) => m[0]).join('') !== text)
    throw new Failure('public-keys.pem', '',
      'each key must follow its line "# NAME — sha256 FINGERPRINT", nothing else');
  return labelled.map(([, name, fingerprint, pem], index) => {
    let key;
    try {
      key = createPublicKey(pem);
    } catch (error) {
      throw new Failure('public-keys.pem', `key ${index + 1} (${name})`, `not a public key (${error.message})`);
    }
    const actual = sha256(key.export({ type: 'spki', format: 'der' }));
    if (actual !== fingerprint)
      throw new Failure('public-keys.pem', `key ${index + 1} (${name})`,
        `its fingerprint is ${actual}, its label says ${fingerprint}`);
    return { name, fingerprint, key };
  });
}

/** Who the materiality rule's acceptances are recorded by (pipelines/close/materiality-rule.ts). */
export const materialityActor = 'rule:materiality';

const units = 10n ** 8n;
/** A decimal (JSON number or text) as an exact count of 1e-8, or null: money is never compared as floats. */
function exact(value) {
  const text = typeof value === 'number' ? value.toFixed(8) : String(value ?? '');
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return null;
  const count = BigInt(match[2]) * units + BigInt(`${match[3] ?? ''}00000000`.slice(0, 8));
  return match[1] ? -count : count;
}
const abs = (n) => (n < 0n ? -n : n);

/**
 * Whether the rule puts a finding (its row as signed) under the thresholds sealed in manifest.json, as pinrecon
 * asks it (materiality-rule.ts): money at issue = |difference|, else |amount|; not 0; no exposure; at most the
 * currency's absolute and, when set, at most its percent of |ledger_value|.
 */
export function underMateriality(finding, thresholds) {
  const threshold = thresholds[finding.currency_code];
  if (!threshold || (finding.exposure !== undefined && finding.exposure !== null)) return false;
  const money = abs(exact(finding.difference ?? finding.amount ?? 0) ?? 0n);
  const absolute = exact(threshold.absolute);
  if (money === 0n || absolute === null || money > absolute) return false;
  if (threshold.percent === undefined) return true;
  const percent = exact(threshold.percent);
  return percent !== null && money * 100n * units <= abs(exact(finding.ledger_value ?? 0) ?? 0n) * percent;
}

/** Walks a chain: positions, hashes, links, and each signature with its key; returns the row hashes by position. */
function checkChain(member, rows, keys, canonical, actorOf, mustBeSigned) {
  let previous = null;
  rows.forEach((row, index) => {
    const where = `row ${index + 1}`;
    const bytes = canonical(row);
    if (row.chain_position !== String(index + 1))
      throw new Failure(member, where,
        `chain_position ${row.chain_position}, expected ${index + 1}: a row was removed or moved`);
    if (sha256(Buffer.from(bytes, 'utf8')) !== row.row_sha256)
      throw new Failure(member, where, 'its fields do not hash to its row_sha256: it was changed');
    if (row.prev_sha256 !== previous)
      throw new Failure(member, where, 'its prev_sha256 is not the row_sha256 of the row before it');
    previous = row.row_sha256;
    if (row.signature === null) {
      if (row.signer_key_sha256 !== null)
        throw new Failure(member, where, 'it names a signer key but has no signature');
      if (mustBeSigned(row)) throw new Failure(member, where, 'it is not signed');
      return;
    }
    const key = keys.find((k) => k.fingerprint === row.signer_key_sha256);
    if (!key)
      throw new Failure(member, where, `signed by key ${row.signer_key_sha256}, which is not in public-keys.pem`);
    if (!verifySignature(null, Buffer.from(bytes, 'utf8'), key.key, Buffer.from(row.signature, 'base64')))
      throw new Failure(member, where, `its signature does not verify with the key of ${key.name}: it was changed`);
    // The row's fields hashed and its signature verified: a name that differs is the key's label, changed.
    if (!key.name.startsWith('(key ') && !sameName(key.name, actorOf(row)))
      throw new Failure('public-keys.pem', `key ${key.fingerprint}`,
        `labelled ${key.name}, but ${member} row ${index + 1} it signed names ${actorOf(row)}`);
  });
}

function headInChain(member, rows, head) {
  if (head.position === 0 && head.sha256 === null) return;
  const row = rows[head.position - 1];
  if (!row || row.row_sha256 !== head.sha256)
    throw new Failure(member, `row ${head.position}`, `it is not the chain head the seal states (${head.sha256})`);
}

/** README.txt as the pack's members give it: what to run, what to compare out of band, what it proves. */
export function readmeText({ seal, sealSha256, keys, verifySha256, version }) {
  return [
    `pinrecon audit pack of ${seal.period}: sign-off ${seal.signoff_id} by ${seal.signed_by} at ${seal.signed_at}.`,
    `Seal sha256: ${sealSha256} — the same line is in the period's email; compare them.`,
    'To check the pack, with Node.js 20 or newer and nothing to install, in this folder: node verify.mjs',
    'Exit 0: the chains, every signature, the seal and the findings are consistent; exit 1 names what is not.',
    'Compare each fingerprint below with its person out of band (in person, by phone), not with this pack:',
    ...keys.map((k) => `  ${k.name}: ${k.fingerprint}`),
    'A signature proves only that the holder of that key signed: the fingerprint you confirm makes it the person.',
    'verify.mjs recomputes the chains from decisions.csv and action-events.csv, checks signatures with',
    'public-keys.pem, the seal (seal.json, seal.sig) against findings.csv (as signed) and manifest.json.',
    'approval-policies.json holds each approval policy (approvers, limits, people) the approvals were made under.',
    `verify.mjs sha256: ${verifySha256} (pinrecon ${version}'s audit-verify.mjs): a changed one proves nothing.`,
    '',
  ].join('\n');
}

export function verifyPack(dir, self) {
  for (const member of members)
    if (!existsSync(path.join(dir, member))) throw new Failure(member, '', 'it is missing from the pack');
  const keys = readKeys(dir);
  const sealBytes = readFileSync(path.join(dir, 'seal.json'), 'utf8');
  let seal;
  try {
    seal = JSON.parse(sealBytes);
  } catch (error) {
    throw new Failure('seal.json', '', `not JSON (${error.message})`);
  }
  if (seal.version !== 'pinrecon.seal.v1' || sealCanonical(seal) !== sealBytes)
    throw new Failure('seal.json', '', 'not a pinrecon.seal.v1 statement in its canonical form: it was changed');
  // The seal is authenticated first: what the other members must agree with is then what its signer signed.
  const signature = readFileSync(path.join(dir, 'seal.sig'), 'utf8').trim();
  const verifies = (k) =>
    verifySignature(null, Buffer.from(sealBytes, 'utf8'), k.key, Buffer.from(signature, 'base64'));
  const sealKey = signature === '' ? undefined : keys.find(verifies);
  // README.txt states the seal's sha256, as the email does: it tells a changed seal.json from a changed seal.sig.
  const readme = readFileSync(path.join(dir, 'README.txt'), 'utf8');
  const sealSha256 = sha256(Buffer.from(sealBytes, 'utf8'));
  const stated = /^Seal sha256: ([0-9a-f]{64}) /m.exec(readme)?.[1];
  if (!sealKey && stated !== undefined && stated !== sealSha256)
    throw new Failure('seal.json', '',
      `its sha256 ${sealSha256} is not the Seal sha256 of README.txt and the email (${stated})`);
  if (signature !== '' && !sealKey)
    throw new Failure('seal.sig', '', 'it does not verify seal.json with any key of public-keys.pem: it was changed');
  if (sealKey && !sealKey.name.startsWith('(key ') && !sameName(sealKey.name, seal.signed_by))
    throw new Failure('public-keys.pem', `key ${sealKey.fingerprint}`,
      `labelled ${sealKey.name}, but the seal it signed names ${seal.signed_by}`);
  const manifestSha256 = sha256(readFileSync(path.join(dir, 'manifest.json')));
  if (manifestSha256 !== seal.manifest_sha256)
    throw new Failure('manifest.json', '',
      `its sha256 ${manifestSha256} is not the seal's manifest_sha256 ${seal.manifest_sha256}`);

  const findings = table(dir, 'findings.csv', findingColumns);
  findings.forEach((row, index) => {
    let signed;
    try {
      signed = JSON.parse(row.signed_json ?? '');
    } catch {
      throw new Failure('findings.csv', `row ${index + 1}`, 'its signed_json is not JSON');
    }
    for (const column of findingColumns.slice(0, -1)) {
      const value = signed[column] === undefined || signed[column] === null ? null : String(signed[column]);
      if (value !== row[column])
        throw new Failure('findings.csv', `row ${index + 1}`, `its ${column} is ${row[column]}, as signed ${value}`);
    }
  });
  const content = sha256(Buffer.from(findings.map((r) => r.signed_json).join('\n'), 'utf8'));
  if (content !== seal.content_sha256)
    throw new Failure('findings.csv', '', `the findings hash to ${content}, the seal states ${seal.content_sha256}`);

  const decisions = table(dir, 'decisions.csv', decisionColumns);
  for (const [index, row] of decisions.entries())
    if (row.period !== seal.period)
      throw new Failure('decisions.csv', `row ${index + 1}`, `period ${row.period}, not ${seal.period}`);
  // Names typed (no seal signature): nothing had a key to sign with; the seal.sig failure comes last. The
  // materiality rule's acceptances are no person's act and carry no key: each must name a finding the thresholds
  // sealed in manifest.json put under the rule (issue 34), else it was typed under the rule's name.
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const asSigned = new Map(findings.map((r) => [r.finding_id, JSON.parse(r.signed_json)]));
  const byRule = (r) => r.decided_by === materialityActor && r.decision === 'accepted' && r.signature === null;
  checkChain('decisions.csv', decisions, keys, decisionCanonical, (r) => r.decided_by,
    (r) => signature !== '' && !byRule(r));
  decisions.forEach((row, index) => {
    if (!byRule(row)) return;
    const finding = asSigned.get(row.finding_id);
    if (!finding || !underMateriality(finding, manifest.materiality ?? {}))
      throw new Failure('decisions.csv', `row ${index + 1}`,
        `it is not signed and names the materiality rule, but the thresholds sealed in manifest.json do not put ` +
          `finding ${row.finding_id} under it (or it is not among the signed findings): typed under the rule's name`);
  });
  // superseded_at is filled later, so it is not hashed: it must be the decided_at of the finding's next decision.
  const next = new Map();
  for (let index = decisions.length - 1; index >= 0; index--) {
    const row = decisions[index];
    if (row.superseded_at !== (next.get(row.finding_id) ?? null))
      throw new Failure('decisions.csv', `row ${index + 1}`,
        'its superseded_at is not the time of the next decision of its finding');
    next.set(row.finding_id, row.decided_at);
  }
  headInChain('decisions.csv', decisions, seal.decision_chain_head);

  const events = table(dir, 'action-events.csv', eventColumns);
  const approval = (r) => signature !== '' && r.to_status === 'approved';
  checkChain('action-events.csv', events, keys, eventCanonical, (r) => r.by, approval);
  headInChain('action-events.csv', events, seal.action_event_chain_head);
  const policies = checkPolicies(dir, events);

  const byHash = new Map(decisions.map((d) => [d.row_sha256, d]));
  const actions = table(dir, 'actions.csv', actionColumns);
  actions.forEach((row, index) => {
    const fail = (reason) => new Failure('actions.csv', `row ${index + 1} (${row.action_id})`, reason);
    if (actionChecksum(row) !== row.row_sha256) throw fail('its fields do not match its row_sha256: it was changed');
    const own = events.filter((e) => e.action_id === row.action_id);
    if (own.length === 0) throw fail('no event in action-events.csv records it');
    if (own.at(-1).to_status !== row.status)
      throw fail(`status ${row.status}, its last event says ${own.at(-1).to_status}`);
    if (own[0].by !== row.proposed_by) throw fail(`proposed_by ${row.proposed_by}, its first event is by ${own[0].by}`);
    const decision = row.decision_sha256 === null ? undefined : byHash.get(row.decision_sha256);
    if (row.decision_sha256 !== null && (!decision || decision.finding_id !== row.finding_id))
      throw fail(
        'the decision it was planned from (decision_sha256) is not a decision of its finding in decisions.csv',
      );
  });

  const verifySha256 = sha256(readFileSync(self));
  const version = manifest.pinreconVersion;
  const expected = readmeText({ seal, sealSha256, keys, verifySha256, version });
  if (readme !== expected) {
    const [got, want] = [readme.split('\n'), expected.split('\n')];
    const line = want.findIndex((text, i) => got[i] !== text);
    if (want[line]?.startsWith('verify.mjs sha256:'))
      throw new Failure('verify.mjs', '',
        `its sha256 ${verifySha256} is not the one README.txt names: one of them was changed`);
    throw new Failure('README.txt', `line ${line + 1}`, 'it is not the text this pack gives: it was changed');
  }
  if (!sealKey)
    throw new Failure('seal.sig', '', 'empty: the sign-off was not signed with a key (names typed, not attested)');
  const counts = { decisions: decisions.length, events: events.length, actions: actions.length };
  return { seal, sealKey, keys, policies, ...counts, findings: findings.length };
}

/** First of all: this file is the one README.txt names (a changed verify.mjs proves nothing). */
function checkSelf(dir, self) {
  const readme = path.join(dir, 'README.txt');
  if (!existsSync(readme)) throw new Failure('README.txt', '', 'it is missing from the pack');
  const named = /^verify\.mjs sha256: ([0-9a-f]{64}) /m.exec(readFileSync(readme, 'utf8'))?.[1];
  if (!named) throw new Failure('README.txt', '', "it does not name verify.mjs's sha256");
  const actual = sha256(readFileSync(self));
  if (actual !== named)
    throw new Failure('verify.mjs', '',
      `its sha256 ${actual} is not the one README.txt names (${named}): it was changed`);
}

function main() {
  const self = fileURLToPath(import.meta.url);
  const dir = path.resolve(process.argv[2] ?? path.dirname(self));
  try {
    checkSelf(dir, self);
    const ok = verifyPack(dir, self);
    console.log(
      `OK ${ok.seal.period}: seal of sign-off ${ok.seal.signoff_id} signed with the key of ${ok.sealKey.name}; ` +
        `${ok.decisions} decisions, ${ok.events} action events, ${ok.actions} actions, ` +
        `${ok.findings} findings as signed, ${ok.policies} approval policy(ies).`,
    );
    console.log('Compare these fingerprints with their people out of band:');
    for (const k of ok.keys) console.log(`  ${k.name}: ${k.fingerprint}`);
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    console.error(`FAIL ${error.message}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
