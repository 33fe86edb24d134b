/**
 * The request queue: calls wait their turn by priority (writes, period windows, look-ups, catalog), at
 * most `concurrency` run at once, and a call made from inside a queued call runs in its slot (a write's
 * look-up after an unclear answer must not wait behind the queue it holds).
 */
import { describe, expect, it } from 'vitest';
import { callKindOf, RequestQueue } from '../../../sources/partner-api/request-queue.js';

describe('request queue', () => {
  it('serves writes, then windows, then look-ups, then catalog calls, whatever order they came in', async () => {
    const queue = new RequestQueue(1);
    const order: string[] = [];
    let release!: () => void;
    const blocker = queue.run('catalog', () => new Promise<void>((resolve) => (release = resolve)));
    const calls = (['catalog', 'lookup', 'window', 'catalog', 'write', 'lookup', 'window'] as const).map((kind, i) =>
      queue.run(kind, async () => void order.push(`${kind}${i}`)),
    );
    expect(queue.waiting).toBe(7);
    expect(queue.running).toBe(1);
    release();
    await Promise.all([blocker, ...calls]);
    expect(order).toEqual(['write4', 'window2', 'window6', 'lookup1', 'lookup5', 'catalog0', 'catalog3']);
  });

  it('runs at most `concurrency` calls at once', async () => {
    const queue = new RequestQueue(3);
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 12 }, () =>
        queue.run('lookup', async () => {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
        }),
      ),
    );
    expect(most).toBe(3);
  });

  it('runs a call made inside a queued call at once, even when every slot is taken', async () => {
    const queue = new RequestQueue(1);
    const result = await queue.run('write', () => queue.run('lookup', async () => 'looked up'));
    expect(result).toBe('looked up');
  });

  it('classifies every operation', () => {
    expect(callKindOf('salesByPeriod')).toBe('window');
    expect(callKindOf('salesByPartnerReference')).toBe('lookup');
    expect(callKindOf('productInfo')).toBe('catalog');
    expect(callKindOf('preRedeem')).toBe('write');
  });
});
