/** `pinrecon verify`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseVerify } from '../../cli/commands/verify.js';
import { driven } from './drive.js';

const at = { timeZone: 'UTC', now: new Date('2026-03-15T12:00:00Z') };

describe('parseVerify', () => {
  it('takes the period, and the key and seal files to read (the action reads them)', () => {
    expect(parseVerify({ period: 'previous' }, at)).toStrictEqual({ period: '2026-02' });
    expect(() => parseVerify({ period: '26-01' }, at)).toThrow(/^--period must be a month written YYYY-MM/);
  });

  it('gets its options from commander', async () => {
    const line = ['verify', '--period', '2026-01', '--public-keys', 'keys.pem', '--seal', 'seal.json'];
    const { options } = await driven(line);
    expect(parseVerify(options, at)).toStrictEqual({ period: '2026-01', publicKeys: 'keys.pem', seal: 'seal.json' });
  });
});
