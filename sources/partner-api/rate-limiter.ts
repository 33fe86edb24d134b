/**
 * Paces the starts of upstream requests so that no rolling second ever holds more than the configured rate
 * (the upstream counts in any rolling second and answers the excess with 503).
 *
 * Two rules, both on actual start times:
 * - smooth: consecutive starts are at least 1000/rate ms apart (no bursts);
 * - sliding log: at most `rate` starts in any window of 1000 ms plus one spacing of headroom, so network
 *   jitter smaller than one spacing cannot make the upstream see rate + 1 in its second.
 * Waiters are served first come, first served. The limiter only paces starts: requests run concurrently.
 */
import { performance } from 'node:perf_hooks';

export class RateLimiter {
  /** Start times (performance.now()) still inside the sliding window, oldest first. */
  private readonly starts: number[] = [];
  private readonly waiters: (() => void)[] = [];
  private lastStart = Number.NEGATIVE_INFINITY;
  private sleeping = false;
  private ratePerSecond: number;

  constructor(maxRequestsPerSecond: number) {
    this.ratePerSecond = RateLimiter.checkedRate(maxRequestsPerSecond);
  }

  get rate(): number {
    return this.ratePerSecond;
  }

  /** Changes the rate for the acquisitions still to come. */
  set rate(maxRequestsPerSecond: number) {
    this.ratePerSecond = RateLimiter.checkedRate(maxRequestsPerSecond);
  }

  /** Callers waiting for a slot. */
  get pending(): number {
    return this.waiters.length;
  }

  /** Resolves when the caller may start one request (FIFO among concurrent callers). */
  acquire(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.serve();
    });
  }

  private get spacingMs(): number {
    return 1000 / this.ratePerSecond;
  }

  private get windowMs(): number {
    return 1000 + this.spacingMs;
  }

  /** Lets waiters through while the rules allow, then sleeps until the head waiter's slot. */
  private serve(): void {
    if (this.sleeping) return;
    while (this.waiters.length > 0) {
      const now = performance.now();
      const wait = this.earliestStart(now) - now;
      if (wait > 0) {
        // Timers may fire a fraction of a millisecond early: re-check on waking rather than trusting them.
        this.sleeping = true;
        if (wait < 1) setImmediate(() => this.wake());
        else setTimeout(() => this.wake(), Math.ceil(wait));
        return;
      }
      this.starts.push(now);
      this.lastStart = now;
      this.waiters.shift()!();
    }
  }

  private wake(): void {
    this.sleeping = false;
    this.serve();
  }

  private earliestStart(now: number): number {
    while (this.starts.length > 0 && this.starts[0]! <= now - this.windowMs) this.starts.shift();
    const limit = Math.max(1, Math.floor(this.ratePerSecond));
    const bySpacing = this.lastStart + this.spacingMs;
    const byWindow = this.starts.length >= limit ? this.starts[this.starts.length - limit]! + this.windowMs : now;
    return Math.max(now, bySpacing, byWindow);
  }

  private static checkedRate(rate: number): number {
    if (!Number.isFinite(rate) || rate <= 0) {
      throw new TypeError(`maxRequestsPerSecond must be a positive number, got ${String(rate)} (${typeof rate}).`);
    }
    return rate;
  }
}

let processLimiter: RateLimiter | undefined;

/**
 * The one limiter of this process, shared by every client (the upstream's limit is per partner, not per
 * client). Created at the first call; a later call with another rate changes its rate.
 */
export function sharedRateLimiter(maxRequestsPerSecond: number): RateLimiter {
  if (!processLimiter) processLimiter = new RateLimiter(maxRequestsPerSecond);
  else if (processLimiter.rate !== maxRequestsPerSecond) processLimiter.rate = maxRequestsPerSecond;
  return processLimiter;
}
