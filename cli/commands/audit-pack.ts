/**
 * `pinrecon audit-pack --period P --out FILE.zip [--public-keys FILE]`: the signed period's seal, keys, chains,
 * actions, findings as signed, manifest, README and a standalone verify.mjs in one zip (pipelines/close/audit-pack.ts).
 */
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { writeAuditPack } from '../../pipelines/close/audit-pack.js';
import { keysFromFile, registeredKeys } from '../../pipelines/close/known-keys.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import { periodOption, type ParseContext } from '../options.js';

export interface AuditPackOptions extends GlobalOptions {
  period?: string;
  out?: string;
  publicKeys?: string;
}

export interface AuditPackRequest {
  period: string;
  out: string;
  publicKeys?: string;
}

/** The command line of `audit-pack`, checked (issue 27: pure, tested in-process). */
export function parseAuditPack(options: AuditPackOptions, at: ParseContext): AuditPackRequest {
  const period = periodOption(options.period, at);
  if (!options.out?.toLowerCase().endsWith('.zip')) throw new UsageError('--out must name a .zip file.');
  return { period, out: options.out, ...(options.publicKeys !== undefined && { publicKeys: options.publicKeys }) };
}

export function registerAuditPack(program: Command): void {
  withGlobalOptions(
    program
      .command('audit-pack')
      .description("a signed period's audit pack: seal, keys, chains, findings as signed, and a verify.mjs to check it")
      .requiredOption('--period <YYYY-MM>', 'the signed-off period')
      .requiredOption('--out <file.zip>', 'the zip to write')
      .option('--public-keys <file>', "PEM keys of signers the config's people no longer name"),
  )
    .addHelpText(
      'after',
      `
Members: seal.json, seal.sig, public-keys.pem (everyone who signed anything in the period), decisions.csv (the
whole chain with signatures), actions.csv, action-events.csv, findings.csv (as signed),
approval-policies.json (each approval policy the approvals were made under), manifest.json, README.txt and
verify.mjs. An auditor unzips it and runs \`node verify.mjs\` (Node 20 or newer, nothing to
install): exit 0 when the pack is consistent and signed, 1 naming the first member and row that is not.
The pack proves what the keys signed; the fingerprints in README.txt, compared with their people out of band,
make the keys theirs.

Example:
  pinrecon audit-pack --period 2026-01 --out audit-2026-01.zip`,
    )
    .action(
      action<AuditPackOptions, []>(async ({ config, output }, options) => {
        const { period, out, publicKeys } = parseAuditPack(options, { timeZone: config.timezone });
        const known = [...registeredKeys(config), ...(publicKeys ? keysFromFile(publicKeys, config) : [])];
        const pack = await withJobWarehouse(
          config,
          (warehouse) => writeAuditPack(warehouse, { period, out, keys: known }),
          { readsOnly: true },
        );
        const lines = [
          `wrote ${pack.file}: the audit pack of ${period} (sign-off ${pack.signoffId})`,
          `Seal sha256: ${pack.sealSha256}`,
          ...pack.keys.map((k) => `  key of ${k.name}: ${k.fingerprint}`),
          ...pack.policies.map((p) => `  approvals under policy ${p.policySha256}: ${p.approvals}`),
          'check it: unzip it into an empty folder and run `node verify.mjs` there',
        ];
        if (!pack.attested)
          output.warn(
            'the seal is not signed (no people configured when it was closed): verify.mjs will say so and exit 1',
          );
        output.result(lines.join('\n'));
        output.document({ ok: true, ...pack });
      }),
    );
}
