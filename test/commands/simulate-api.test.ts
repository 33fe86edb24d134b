/** `pinrecon simulate-api`'s command line in-process (issue 27 item 5): its parse function and commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseSimulateApi, type SimulateApiOptions } from '../../cli/commands/simulate-api.js';
import { UsageError } from '../../core/errors.js';
import { DEFAULT_SALES_PER_DAY } from '../../doubles/simulator/sale-generator.js';
import { driven } from './drive.js';

const at = { timeZone: 'America/Sao_Paulo', now: new Date('2026-03-10T12:00:00Z') };

/** The options as commander gives them with no flag (its declared defaults). */
async function defaults(...extra: string[]): Promise<SimulateApiOptions> {
  return (await driven<SimulateApiOptions>(['simulate-api', ...extra])).options;
}

describe('parseSimulateApi', () => {
  it("defaults: last month's first day to today in the zone, sales a day, no faults, api.baseUrl's port", async () => {
    const request = parseSimulateApi(await defaults(), at);
    expect(request).toEqual({
      host: '127.0.0.1',
      seed: 1,
      from: '2026-02-01',
      to: '2026-03-10',
      salesCount: 38 * DEFAULT_SALES_PER_DAY,
      malformedEvery: 0,
      tokenLifetimeSeconds: 3600,
      rateLimitPerSecond: 50,
      maxPeriodDays: 31,
      faults: { error503Rate: 0, error500Rate: 0, dropRate: 0, slowRate: 0, slowMs: 2000, revokeEverySeconds: 0 },
      verbose: false,
    });
    expect(request.port).toBeUndefined();
  });

  it('takes every option as given', async () => {
    const options = await defaults(
      ...['--host', '::1', '--port', '0', '--seed', '9', '--from', '2026-01-01', '--to', '2026-01-02'],
      ...['--sales', '10', '--token-lifetime', '1.5', '--rate-limit', '5', '--max-period-days', '7'],
      ...['--fault-503', '0.1', '--fault-500', '.2', '--fault-drop', '1', '--slow-rate', '0.5', '--slow-ms', '10'],
      ...['--revoke-every', '30', '--malformed-every', '4', '--keep-responses', 'kept', '--identifier', 'me'],
      ...['--secret', 's', '--verbose'],
    );
    expect(parseSimulateApi(options, at)).toEqual({
      host: '::1',
      port: 0,
      seed: 9,
      from: '2026-01-01',
      to: '2026-01-02',
      salesCount: 10,
      malformedEvery: 4,
      tokenLifetimeSeconds: 1.5,
      rateLimitPerSecond: 5,
      maxPeriodDays: 7,
      faults: { error503Rate: 0.1, error500Rate: 0.2, dropRate: 1, slowRate: 0.5, slowMs: 10, revokeEverySeconds: 30 },
      keepResponses: 'kept',
      identifier: 'me',
      secret: 's',
      verbose: true,
    });
  });

  it('refuses bad options, naming the option', async () => {
    for (const [args, message] of [
      [['--fault-503', '1.5'], '--fault-503 must be a share between 0 and 1 (e.g. 0.05), got "1.5".'],
      [['--from', '2026-02-30'], '--from must be a date written YYYY-MM-DD, got "2026-02-30".'],
      [['--from', '2026-02-10', '--to', '2026-02-01'], '--to (2026-02-01) is before --from (2026-02-10).'],
      [['--rate-limit', 'lots'], '--rate-limit must be a number greater than 0, got "lots".'],
      [['--token-lifetime', '0'], '--token-lifetime must be a number greater than 0, got "0".'],
      [['--port', '70000'], '--port must be a whole number from 0 to 65535, got "70000".'],
      [['--sales', '-1'], `--sales must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, got "-1".`],
    ] as const) {
      const options = await defaults(...args);
      expect(() => parseSimulateApi(options, at), args.join(' ')).toThrow(UsageError);
      expect(() => parseSimulateApi(options, at), args.join(' ')).toThrow(message);
    }
  });
});
