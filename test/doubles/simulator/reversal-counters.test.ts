/**
 * The simulator's reversal counters and held answer (issue 15): tests count the reversal requests and the
 * refused ones, and a test may hold a reversal's answer after the reversal took effect (to kill a client then).
 */
import { afterEach, expect, test } from 'vitest';
import { FIRST_TRANSACTION_ID } from '../../../doubles/simulator/sale-generator.js';
import { startSimulator, type RunningSimulator } from '../../../doubles/simulator/server.js';

let sim: RunningSimulator | undefined;
const dataset = { from: '2024-03-01', to: '2024-03-31', salesCount: 50, timezone: 'America/Sao_Paulo' };
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function token(s: RunningSimulator): Promise<string> {
  const body = JSON.stringify({ identifier: 'demo-partner', secret: 'demo-secret' });
  const answer = await fetch(`${s.url}/auth/token`, { method: 'POST', body });
  return ((await answer.json()) as { accessToken: string }).accessToken;
}

const reverse = (s: RunningSimulator, bearer: string, transactionId: number, signal?: AbortSignal) =>
  fetch(`${s.url}/reversal`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ transactionId }),
    signal,
  });

test('reversals and refused reversals are counted; the second reversal of a sale is refused with 400', async () => {
  sim = await startSimulator({ dataset });
  const bearer = await token(sim);
  const id = FIRST_TRANSACTION_ID + 3;
  expect((await reverse(sim, bearer, id)).status).toBe(200);
  expect(sim.dataset.saleByTransactionId(id)?.status).toBe('Canceled in stock');
  const again = await reverse(sim, bearer, id);
  expect(again.status).toBe(400);
  expect(await again.json()).toMatchObject({ code: 'already_reversed' });
  expect(sim.stats()).toMatchObject({ reversals: 2, reversalsRefused: 1 });
});

test('a held answer: the reversal has taken effect before the client hears of it', async () => {
  sim = await startSimulator({ dataset, reversalAnswerDelayMs: 60_000 });
  const bearer = await token(sim);
  const id = FIRST_TRANSACTION_ID + 4;
  const client = new AbortController();
  const pending = reverse(sim, bearer, id, client.signal).then(
    (answer) => answer.status,
    () => 'gone',
  );
  while (sim.stats().reversals === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(sim.dataset.saleByTransactionId(id)?.status).toBe('Canceled in stock');
  // The client goes away before the answer (as a killed process would): it never hears of the reversal.
  client.abort();
  expect(await pending).toBe('gone');
  sim.setReversalAnswerDelay(0);
  expect((await reverse(sim, bearer, id)).status).toBe(400);
});
