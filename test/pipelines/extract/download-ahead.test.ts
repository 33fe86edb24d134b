/**
 * The bound on extract's overlap of downloads and loads (pipelines/extract/download-ahead.ts), proven by the
 * order of events, not by timing: the test decides when each download and load finishes, in the orders that
 * would let a download run away (instant downloads, loads that never end until released), and checks that no
 * more than `ahead` windows are ever downloaded or downloading and not yet loading.
 */
import { describe, expect, it } from 'vitest';
import { downloadAhead } from '../../../pipelines/extract/download-ahead.js';

/** A promise the test settles. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** Lets every settled promise's continuations run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Drives downloadAhead over `count` windows with downloads and loads the test settles one by one, recording
 * what happened and the most windows ever downloaded-or-downloading but not yet handed to a load.
 */
function harness(count: number, ahead?: number) {
  const windows = Array.from({ length: count }, (_, i) => i);
  const downloads = new Map<number, ReturnType<typeof deferred<string>>>();
  const loads = new Map<number, ReturnType<typeof deferred>>();
  const events: string[] = [];
  let loadsStarted = 0;
  let mostAhead = 0;
  const done = downloadAhead(
    windows,
    (w) => {
      events.push(`download ${w}`);
      mostAhead = Math.max(mostAhead, downloads.size + 1 - loadsStarted);
      const d = deferred<string>();
      downloads.set(w, d);
      return d.promise;
    },
    (w, file) => {
      events.push(`load ${w} ${file}`);
      loadsStarted++;
      const l = deferred();
      loads.set(w, l);
      return l.promise;
    },
    { ...(ahead !== undefined && { ahead }), discard: (file) => events.push(`discard ${file}`) },
  );
  const outcome = done.then(
    () => 'ok',
    (error: unknown) => (error as Error).message,
  );
  return { events, downloads, loads, outcome, mostAhead: () => mostAhead };
}

describe('downloadAhead', () => {
  it('never has more than one window downloaded ahead of the loads, however fast downloads are', async () => {
    const h = harness(6);
    for (let w = 0; w < 6; w++) {
      await flush();
      // Downloads finish at once: only a bound stops them from running through every window.
      for (const [i, d] of h.downloads) if (i >= w) d.resolve(`file-${i}`);
      await flush();
      await flush();
      expect(h.downloads.size).toBeLessThanOrEqual(w + 2);
      expect(h.loads.has(w)).toBe(true);
      h.loads.get(w)!.resolve();
    }
    expect(await h.outcome).toBe('ok');
    expect(h.mostAhead()).toBe(1);
    // Each load in window order, and the next download started before the one loading had finished.
    expect(h.events).toEqual([
      'download 0',
      'load 0 file-0',
      'download 1',
      'load 1 file-1',
      'download 2',
      'load 2 file-2',
      'download 3',
      'load 3 file-3',
      'download 4',
      'load 4 file-4',
      'download 5',
      'load 5 file-5',
    ]);
  });

  it('with ahead = N, holds at most N windows ahead', async () => {
    const h = harness(8, 3);
    for (let w = 0; w < 8; w++) {
      await flush();
      for (const d of h.downloads.values()) d.resolve('f');
      await flush();
      await flush();
      h.loads.get(w)!.resolve();
    }
    expect(await h.outcome).toBe('ok');
    expect(h.mostAhead()).toBe(3);
  });

  it('does not load a window before its download has finished, when downloads are the slow side', async () => {
    const h = harness(3);
    await flush();
    expect(h.events).toEqual(['download 0']);
    h.downloads.get(0)!.resolve('a');
    await flush();
    expect(h.events).toEqual(['download 0', 'load 0 a', 'download 1']);
    h.loads.get(0)!.resolve();
    await flush();
    // Load 0 is done, download 1 is not: nothing more starts.
    expect(h.events).toHaveLength(3);
    h.downloads.get(1)!.resolve('b');
    await flush();
    h.loads.get(1)!.resolve();
    await flush();
    h.downloads.get(2)!.resolve('c');
    await flush();
    h.loads.get(2)!.resolve();
    expect(await h.outcome).toBe('ok');
    expect(h.events).toEqual(['download 0', 'load 0 a', 'download 1', 'load 1 b', 'download 2', 'load 2 c']);
  });

  it("a failed download fails the run at its turn: earlier windows load, later ones don't start", async () => {
    const h = harness(4);
    await flush();
    h.downloads.get(0)!.resolve('a');
    await flush();
    // Download 1 fails while window 0 loads: window 0 still loads and commits.
    h.downloads.get(1)!.reject(new Error('download 1 failed'));
    await flush();
    h.loads.get(0)!.resolve();
    expect(await h.outcome).toBe('download 1 failed');
    expect(h.events).toEqual(['download 0', 'load 0 a', 'download 1']);
  });

  it('a failed load waits for the download under way and starts no other', async () => {
    const h = harness(4);
    await flush();
    h.downloads.get(0)!.resolve('a');
    await flush();
    h.loads.get(0)!.reject(new Error('load 0 failed'));
    await flush();
    let settled = false;
    void h.outcome.then(() => (settled = true));
    await flush();
    expect(settled).toBe(false);
    h.downloads.get(1)!.resolve('b');
    expect(await h.outcome).toBe('load 0 failed');
    // The download finished but will never load: handed back (extract removes its uncompressed copy).
    expect(h.events).toEqual(['download 0', 'load 0 a', 'download 1', 'discard b']);
  });

  it('a failed download hands back the downloads after it that finished', async () => {
    const h = harness(4, 2);
    await flush();
    h.downloads.get(0)!.reject(new Error('download 0 failed'));
    h.downloads.get(1)!.resolve('b');
    expect(await h.outcome).toBe('download 0 failed');
    expect(h.events).toEqual(['download 0', 'download 1', 'discard b']);
  });

  it('refuses an ahead that is not a positive integer', async () => {
    await expect(
      downloadAhead(
        [1],
        async () => 1,
        async () => {},
        { ahead: 0 },
      ),
    ).rejects.toThrow(/positive integer/);
  });
});
