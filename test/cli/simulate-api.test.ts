/**
 * `pinrecon simulate-api` as a user runs it (needs `npm run build`): serves the configured paths with the
 * credentials from the environment, never prints them or a token, logs requests with --verbose, stops
 * cleanly on SIGTERM. Its options and their usage errors: test/commands/simulate-api.test.ts.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TokenRecord } from '../../sources/partner-api/types.js';
import { runCli, startCli, type RunningCli } from '../support/cli.js';

const workDir = mkdtempSync(path.join(os.tmpdir(), 'pinrecon-simulate-api-'));
const env = { PINRECON_API_IDENTIFIER: 'cli-partner', PINRECON_API_SECRET: 'cli-secret-XYZ', PINRECON_CONFIG: '' };

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function start(args: string[]): RunningCli {
  return startCli(['simulate-api', '--port', '0', ...args], { cwd: workDir, env });
}

/**
 * Polls `probe` until it gives a value, or fails once the simulator has exited without it. No deadline of its
 * own: a loaded machine took over 20 s to start the CLI; the test's timeout is the hang detector.
 */
async function waitFor<T>(running: RunningCli, probe: () => T | undefined, what: string): Promise<T> {
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (running.child.exitCode !== null || running.child.signalCode !== null)
      throw new Error(`the simulator exited before ${what}: ${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stop(running: RunningCli): Promise<number | null> {
  running.child.kill('SIGTERM');
  return (await running.done).code;
}

describe('pinrecon simulate-api', () => {
  it(
    'prints {url, ...} with --json, ' + 'serves the configured paths with the env credentials, stops on SIGTERM',
    async () => {
      writeFileSync(
        path.join(workDir, 'custom.json'),
        JSON.stringify({ api: { endpoints: { getToken: 'POST /v3/token' } } }),
      );
      const running = start([
        '--json',
        '--sales',
        '2000',
        '--from',
        '2026-01-01',
        '--to',
        '2026-01-31',
        '--seed',
        '4',
        '--config',
        'custom.json',
      ]);
      try {
        const summary = await waitFor(
          running,
          () => {
            try {
              return JSON.parse(running.stdout()) as {
                url: string;
                seed: number;
                dataset: { salesCount: number };
                endpoints: Record<string, string>;
              };
            } catch {
              return undefined;
            }
          },
          'the JSON summary',
        );
        expect(summary).toMatchObject({
          seed: 4,
          dataset: { salesCount: 2000 },
          endpoints: { getToken: 'POST /v3/token' },
        });
        const login = await fetch(`${summary.url}/v3/token`, {
          method: 'POST',
          body: JSON.stringify({ identifier: 'cli-partner', secret: 'cli-secret-XYZ' }),
        });
        expect(login.status).toBe(200);
        const { accessToken } = (await login.json()) as TokenRecord;
        const sales = await fetch(`${summary.url}/sales/period/2026-01-10/2026-01-10`, {
          headers: { Authorization: `Bearer ${accessToken}` },
        });
        expect(((await sales.json()) as unknown[]).length).toBeGreaterThan(30);
        expect(await stop(running)).toBe(0);
        expect(running.stdout() + running.stderr()).not.toContain('cli-secret-XYZ');
        expect(running.stdout() + running.stderr()).not.toContain(accessToken);
      } finally {
        running.child.kill('SIGKILL');
      }
    },
  );

  it('logs one line per request with --verbose, without tokens or secrets', async () => {
    const running = start(['--verbose', '--sales', '500']);
    try {
      const url = await waitFor(running, () => /listening at (http:\/\/\S+)/.exec(running.stdout())?.[1], 'the URL');
      expect(running.stdout()).toMatch(/credentials: the configuration\/environment/);
      const login = await fetch(`${url}/auth/token`, {
        method: 'POST',
        body: JSON.stringify({ identifier: 'cli-partner', secret: 'cli-secret-XYZ' }),
      });
      const { accessToken } = (await login.json()) as TokenRecord;
      await (await fetch(`${url}/catalog`, { headers: { Authorization: `Bearer ${accessToken}` } })).text();
      await (
        await fetch(`${url}/catalog/products/999`, { headers: { Authorization: `Bearer ${accessToken}` } })
      ).text();
      await waitFor(
        running,
        () => (running.stderr().includes('unknown_product') ? true : undefined),
        'the request log',
      );
      expect(running.stderr()).toMatch(/POST \/auth\/token → 200 \d+ms \[getToken\]/);
      expect(running.stderr()).toMatch(/GET \/catalog → 200 \d+ms \[catalogTree\]/);
      expect(await stop(running)).toBe(0);
      expect(running.stderr()).toMatch(/Stopped \(SIGTERM\) after 3 requests/);
      expect(running.stdout() + running.stderr()).not.toContain('cli-secret-XYZ');
      expect(running.stdout() + running.stderr()).not.toContain(accessToken);
    } finally {
      running.child.kill('SIGKILL');
    }
  });

  it('keeps period answers in --keep-responses DIR and serves a window again from there', async () => {
    const running = start([
      '--sales',
      '3000',
      '--from',
      '2026-01-01',
      '--to',
      '2026-01-31',
      '--keep-responses',
      'kept',
    ]);
    try {
      const url = await waitFor(running, () => /listening at (http:\/\/\S+)/.exec(running.stdout())?.[1], 'the URL');
      const login = await fetch(`${url}/auth/token`, {
        method: 'POST',
        body: JSON.stringify({ identifier: 'cli-partner', secret: 'cli-secret-XYZ' }),
      });
      const { accessToken } = (await login.json()) as TokenRecord;
      const window = async () =>
        (
          await fetch(`${url}/sales/period/2026-01-05/2026-01-20?searchIsByCreateDate=true`, {
            headers: { Authorization: `Bearer ${accessToken}` },
          })
        ).text();
      const first = await window();
      expect(JSON.parse(first).length).toBeGreaterThan(1000);
      expect(await window()).toBe(first);
      expect(readdirSync(path.join(workDir, 'kept')).filter((f) => f.endsWith('.json.gz'))).toHaveLength(1);
      expect(await stop(running)).toBe(0);
      expect(running.stderr()).toContain(
        `Period answers: 1 rendered into and 1 served from ${path.join(workDir, 'kept')}`,
      );
    } finally {
      running.child.kill('SIGKILL');
    }
  });
});
