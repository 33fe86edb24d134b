/** `pinrecon serve`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseServe, type ServeOptions } from '../../cli/commands/serve.js';
import { UsageError } from '../../core/errors.js';
import { driven } from './drive.js';

const at = { timeZone: 'UTC', now: new Date('2026-03-15T12:00:00Z') };
const defaults: ServeOptions = { port: '8765', host: '127.0.0.1' };

describe('parseServe', () => {
  it('listens on a loopback address and a port from 0 to 65535; the period is optional', () => {
    expect(parseServe(defaults, at)).toEqual({ host: '127.0.0.1', port: 8765, actor: {} });
    for (const host of ['localhost', '::1']) expect(parseServe({ ...defaults, host }, at).host).toBe(host);
    expect(parseServe({ ...defaults, port: '0', period: 'previous', by: 'Ana' }, at)).toEqual({
      host: '127.0.0.1',
      port: 0,
      actor: { by: 'Ana' },
      period: '2026-02',
    });
  });

  it('refuses an address other machines reach, a bad port and a bad period, naming the option', () => {
    expect(() => parseServe({ ...defaults, host: '0.0.0.0' }, at)).toThrow(UsageError);
    expect(() => parseServe({ ...defaults, host: '0.0.0.0' }, at)).toThrow(
      /^--host 0\.0\.0\.0 is not a loopback address: .* through an SSH tunnel\.$/,
    );
    for (const port of ['65536', '-1', '80a'])
      expect(() => parseServe({ ...defaults, port }, at), port).toThrow(
        `--port must be a whole number from 0 to 65535, got "${port}".`,
      );
    expect(() => parseServe({ ...defaults, period: 'Jan' }, at)).toThrow(/^--period must be/);
  });
});

describe('pinrecon serve (commander, in-process)', () => {
  it('defaults to 127.0.0.1:8765 and gives the parse every option', async () => {
    expect(parseServe((await driven<ServeOptions>(['serve'])).options, at)).toEqual({
      host: '127.0.0.1',
      port: 8765,
      actor: {},
    });
    const line = ['serve', '--port', '0', '--host', '::1', '--identity', 'a.pem', '--by', 'Ana', '--period', '2026-01'];
    expect(parseServe((await driven<ServeOptions>(line)).options, at)).toEqual({
      host: '::1',
      port: 0,
      actor: { identity: 'a.pem', by: 'Ana' },
      period: '2026-01',
    });
  });
});
