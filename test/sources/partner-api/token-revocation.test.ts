/**
 * Token revocation against the simulator (issue 8 item 8): the provider revokes the token pinrecon just got
 * by logging in again (as when another process logs in with the same credentials). Extraction renews and
 * finishes instead of failing with a wrong hint about the 31-day rule; look-ups of unknown references stay
 * one request each and still find what exists.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { withWarehouse } from '../../../core/warehouse.js';
import { extractSales } from '../../../pipelines/extract/extract.js';
import { PartnerApiClient } from '../../../sources/partner-api/client.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';
import { RequestQueue } from '../../../sources/partner-api/request-queue.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../../doubles/simulator/server.js';
import { capturedOutput, extractConfig, identifier, secret, tempDir } from '../../support/extract.js';

const dataset = { from: '2026-01-01', to: '2026-02-10', salesCount: 800, timezone: 'America/Sao_Paulo' };
const simulators: RunningSimulator[] = [];
async function simulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const running = await startSimulator({ seed: 11, identifier, secret, dataset, ...options });
  simulators.push(running);
  return running;
}
afterAll(async () => {
  await Promise.all(simulators.map((s) => s.close()));
});

describe('a token revoked right after a (re-)login', () => {
  it('extraction renews it and completes every window', async () => {
    // The first login's token and the first re-login's token are both dead on arrival.
    const upstream = await simulator({ faults: { revokeAfterLogins: [1, 2] } });
    const config = extractConfig(tempDir('revoked-after-login'), upstream.url);
    const { output, text } = capturedOutput();
    const summary = await withWarehouse(config.database, { timezone: config.timezone }, (warehouse) =>
      extractSales(
        warehouse,
        config,
        { from: '2026-01-01', to: '2026-01-31', by: 'both', today: '2026-06-30' },
        output,
      ),
    );
    expect(summary.windows.fetched).toBe(2);
    expect(summary.loaded).toBeGreaterThan(0);
    expect(upstream.stats().tokensIssued).toBe(3);
    expect(upstream.stats().revocations).toBe(2);
    expect(text()).not.toMatch(/31 days/);
  });

  it(
    'look-ups: an unknown reference costs one request, a ' +
      'known one is found, through a revocation after a re-login',
    async () => {
      const upstream = await simulator();
      const config = extractConfig(tempDir('revoked-lookups'), upstream.url);
      const client = new PartnerApiClient(config.api, { limiter: new RateLimiter(40), queue: new RequestQueue() });
      try {
        const known = [...upstream.dataset.salesInPeriod('2026-01-05', '2026-01-05', true)]
          .slice(0, 5)
          .map((s) => s.partnerReference);
        const ghosts = Array.from({ length: 30 }, (_, i) => `GHOST-${i}`);
        await client.salesByPartnerReference(known[0]!); // logged in
        const before = upstream.stats().requests;
        const answers = await Promise.all(ghosts.map((g) => client.salesByPartnerReference(g)));
        expect(answers.every((a) => a.length === 0)).toBe(true);
        // 30 look-ups plus a few shared canaries (how many depends on timing), no re-login: not 3 × 30.
        expect(upstream.stats().requests - before).toBeLessThanOrEqual(40);
        expect(client.stats.authentications).toBe(1);

        // Another process logs in: our token dies, and so does the one our re-login gets.
        upstream.setFaults({ revokeAfterLogins: [2] });
        upstream.revokeAllTokens();
        const found = await Promise.all([...known, 'GHOST-X'].map((r) => client.salesByPartnerReference(r)));
        expect(found.slice(0, known.length).map((a) => a.map((s) => s.partnerReference))).toEqual(
          known.map((r) => [r]),
        );
        expect(found[known.length]).toEqual([]);
        expect(client.stats.authentications).toBe(3);
      } finally {
        client.close();
      }
    },
  );
});
