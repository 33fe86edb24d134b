/** `pinrecon audit-pack`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseAuditPack } from '../../cli/commands/audit-pack.js';
import { UsageError } from '../../core/errors.js';
import { driven, refused } from './drive.js';

const at = { timeZone: 'UTC', now: new Date('2026-03-15T12:00:00Z') };

describe('parseAuditPack', () => {
  it('takes a period and a .zip (any case) to write', () => {
    expect(parseAuditPack({ period: '2026-01', out: 'audit.ZIP' }, at)).toStrictEqual({
      period: '2026-01',
      out: 'audit.ZIP',
    });
  });

  it('refuses an --out that is not a .zip, and a bad period', () => {
    expect(() => parseAuditPack({ period: '2026-01', out: 'audit.tar' }, at)).toThrow(UsageError);
    expect(() => parseAuditPack({ period: '2026-01', out: 'audit.tar' }, at)).toThrow('--out must name a .zip file.');
    expect(() => parseAuditPack({ period: 'x', out: 'a.zip' }, at)).toThrow(/^--period must be/);
  });
});

describe('pinrecon audit-pack (commander, in-process)', () => {
  it('gives the parse its options; --period and --out are required', async () => {
    const { options } = await driven(['audit-pack', '--period', '2026-01', '--out', 'a.zip', '--public-keys', 'k.pem']);
    expect(parseAuditPack(options, at)).toStrictEqual({ period: '2026-01', out: 'a.zip', publicKeys: 'k.pem' });
    expect((await refused(['audit-pack', '--period', '2026-01'])).stderr).toContain(
      "required option '--out <file.zip>' not specified",
    );
  });
});
