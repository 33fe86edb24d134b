/**
 * The simulator's kept period answers (keepResponsesDir, `simulate-api --keep-responses`): rendered once, served
 * from the file afterwards with the very bytes a generated answer has (the file itself, gzip-encoded, to a client
 * that accepts it), and never served once the API changed a sale; files of another data set are not served.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../doubles/simulator/server.js';

const CREDENTIALS = { identifier: 'test-partner', secret: 'test-secret' };
const DATASET = { from: '2026-01-01', to: '2026-02-28', salesCount: 6000, timezone: 'America/Sao_Paulo' };
const dir = mkdtempSync(path.join(os.tmpdir(), 'pinrecon-kept-responses-'));
const running: RunningSimulator[] = [];

async function start(options: { keep?: string; seed?: number } = {}): Promise<RunningSimulator> {
  const sim = await startSimulator({
    ...CREDENTIALS,
    seed: options.seed ?? 7,
    dataset: DATASET,
    rateLimitPerSecond: 10_000,
    ...(options.keep && { keepResponsesDir: options.keep }),
  });
  running.push(sim);
  return sim;
}

async function token(sim: RunningSimulator): Promise<string> {
  const response = await fetch(`${sim.url}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(CREDENTIALS),
  });
  return ((await response.json()) as { accessToken: string }).accessToken;
}

/** The body of a period answer, as text. */
async function period(sim: RunningSimulator, auth: string, start: string, end: string, byCreate: boolean) {
  const response = await fetch(`${sim.url}/sales/period/${start}/${end}?searchIsByCreateDate=${byCreate}`, {
    headers: { Authorization: `Bearer ${auth}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return response.text();
}

/** A GET whose answer is read as sent: its Content-Encoding and its bytes, not decoded. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ encoding?: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }),
        );
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kept period answers', () => {
  it('renders a window once and serves the same bytes from the file after', async () => {
    const keep = path.join(dir, 'same-bytes');
    const plain = await start();
    const kept = await start({ keep });
    const [plainAuth, keptAuth] = [await token(plain), await token(kept)];
    for (const byCreate of [false, true]) {
      const generated = await period(plain, plainAuth, '2026-02-01', '2026-02-20', byCreate);
      expect(JSON.parse(generated).length).toBeGreaterThan(1000);
      // Long enough to take several chunks of the stream, so chunk joins are compared too.
      expect(generated.length).toBeGreaterThan(200_000);
      expect(await period(kept, keptAuth, '2026-02-01', '2026-02-20', byCreate)).toBe(generated);
      expect(await period(kept, keptAuth, '2026-02-01', '2026-02-20', byCreate)).toBe(generated);
    }
    expect(readdirSync(keep).filter((f) => f.endsWith('.json.gz'))).toHaveLength(2);
    expect(kept.stats()).toMatchObject({ keptRendered: 2, keptReplayed: 2 });
    expect(plain.stats()).toMatchObject({ keptRendered: 0, keptReplayed: 0 });
  });

  it('sends the kept file itself, gzip-encoded, to a client that accepts gzip, and plain JSON to others', async () => {
    const keep = path.join(dir, 'encoded');
    const sim = await start({ keep });
    const auth = await token(sim);
    const url = `${sim.url}/sales/period/2026-02-01/2026-02-05?searchIsByCreateDate=false`;
    const plain = await rawGet(url, { authorization: `Bearer ${auth}` });
    expect(plain.encoding).toBeUndefined();
    for (const accept of ['gzip', 'deflate, gzip;q=0.5']) {
      const encoded = await rawGet(url, { authorization: `Bearer ${auth}`, 'accept-encoding': accept });
      expect(encoded.encoding).toBe('gzip');
      const [file] = readdirSync(keep).filter((f) => f.endsWith('.json.gz'));
      expect(encoded.body.equals(readFileSync(path.join(keep, file!)))).toBe(true);
      expect(gunzipSync(encoded.body).equals(plain.body)).toBe(true);
    }
    expect((await rawGet(url, { authorization: `Bearer ${auth}`, 'accept-encoding': 'gzip;q=0' })).encoding).toBe(
      undefined,
    );
  });

  it('answers from the data set again once the API changed a sale', async () => {
    const keep = path.join(dir, 'changed');
    const sim = await start({ keep });
    const auth = await token(sim);
    const before = JSON.parse(await period(sim, auth, '2026-02-01', '2026-02-03', false)) as {
      transactionId: number;
      status: string;
    }[];
    const reversed = before.find((sale) => sale.status !== 'Canceled in stock')!;
    const reversal = await fetch(`${sim.url}/reversal`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${auth}` },
      body: JSON.stringify({ transactionId: reversed.transactionId }),
    });
    expect(reversal.status).toBe(200);
    const after = JSON.parse(await period(sim, auth, '2026-02-01', '2026-02-03', false)) as typeof before;
    expect(after.find((sale) => sale.transactionId === reversed.transactionId)?.status).toBe('Canceled in stock');
    expect(sim.stats()).toMatchObject({ keptRendered: 1, keptReplayed: 0 });
  });

  it('never serves a file kept for another data set', async () => {
    const keep = path.join(dir, 'shared');
    const first = await start({ keep, seed: 7 });
    const firstBody = await period(first, await token(first), '2026-02-01', '2026-02-02', true);
    const other = await start({ keep, seed: 8 });
    const otherBody = await period(other, await token(other), '2026-02-01', '2026-02-02', true);
    expect(otherBody).not.toBe(firstBody);
    expect(other.stats()).toMatchObject({ keptRendered: 1, keptReplayed: 0 });
    // The same data set in a new process does find it.
    const again = await start({ keep, seed: 7 });
    expect(await period(again, await token(again), '2026-02-01', '2026-02-02', true)).toBe(firstBody);
    expect(again.stats()).toMatchObject({ keptRendered: 0, keptReplayed: 1 });
  });
});
