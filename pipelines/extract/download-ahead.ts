/**
 * How extract overlaps downloads and loads: loads run one at a time in window order, and while one loads the
 * next window downloads (the network, masking and gzip in this process; the load is DuckDB's threads). At most
 * `ahead` windows are ever downloaded or downloading and not yet loading, so what waits in flight and on disk
 * is bounded by construction, whatever the relative speeds of the two on a busy machine.
 */

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Downloads and loads every window. A failed download is looked at when its turn to load comes (the windows
 * before it still load); when a download or a load fails, no new download starts and those under way (which
 * commit nothing) finish before the error leaves, each download that will not be loaded handed to `discard`.
 */
export async function downloadAhead<W, D>(
  windows: readonly W[],
  download: (window: W) => Promise<D>,
  load: (window: W, downloaded: D) => Promise<void>,
  { ahead = 1, discard }: { ahead?: number; discard?: (downloaded: D) => void } = {},
): Promise<void> {
  if (!Number.isInteger(ahead) || ahead < 1) throw new RangeError(`ahead must be a positive integer, got ${ahead}`);
  // Downloads started and not yet handed to a load, in window order.
  const waiting: Promise<Settled<D>>[] = [];
  let started = 0;
  const fill = () => {
    while (started < windows.length && waiting.length < ahead) waiting.push(settle(download(windows[started++]!)));
  };
  const settleTheRest = async () => {
    for (const left of await Promise.all(waiting)) if (left.ok) discard?.(left.value);
  };
  fill();
  for (const window of windows) {
    const downloaded = await waiting.shift()!;
    if (!downloaded.ok) {
      await settleTheRest();
      throw downloaded.error;
    }
    // The load starts first: a download started now is the one window ahead of it.
    const loading = load(window, downloaded.value);
    fill();
    try {
      await loading;
    } catch (error) {
      await settleTheRest();
      throw error;
    }
  }
}

/** A promise that never rejects: its outcome is looked at when its turn comes (no unhandled rejection meanwhile). */
async function settle<T>(work: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    return { ok: false, error };
  }
}
