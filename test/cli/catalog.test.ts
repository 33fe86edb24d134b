/** `pinrecon catalog` through the built CLI against the simulator: --json summary, exit 2 naming a missing key. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../doubles/simulator/server.js';
import { runCli } from '../support/cli.js';

let simulator: RunningSimulator;

beforeAll(async () => {
  simulator = await startSimulator({
    seed: 7,
    identifier: 'catalog-test',
    secret: 'catalog-secret',
    dataset: { from: '2024-01-01', to: '2024-01-02', salesCount: 10 },
  });
});
afterAll(async () => {
  await simulator.close();
});

describe('pinrecon catalog (CLI)', () => {
  it('prints a JSON summary with --json and exits 0; a missing secret exits 2 naming the key', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-catalog-'));
    const file = path.join(dir, 'pinrecon.config.json');
    writeFileSync(
      file,
      JSON.stringify({
        database: path.join(dir, 'pinrecon.duckdb'),
        api: { baseUrl: simulator.url, identifier: 'catalog-test' },
      }),
    );
    const run = (env: Record<string, string>) => runCli(['catalog', '--json', '--config', file], { env });
    const ok = await run({ PINRECON_API_SECRET: 'catalog-secret' });
    expect(ok.code).toBe(0);
    const document = JSON.parse(ok.stdout) as { ok: boolean; products: number; snapshotId: string };
    expect(document).toMatchObject({ ok: true, products: simulator.dataset.catalog.available({}).length });
    expect(ok.stdout + ok.stderr).not.toContain('catalog-secret');

    const missing = await run({ PINRECON_API_SECRET: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/api\.secret \(env PINRECON_API_SECRET\)/);
  });
});
