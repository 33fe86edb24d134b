/**
 * Paces the starts of provider requests so that no rolling second ever holds more than the configured rate
 * (the provider answers the excess with 503): a sliding log with 20 ms of headroom, a steady schedule that
 * does not lose a late start, and no bursts (docs/ARCHITECTURE.md, "Design notes by module"). Waiters are
 * served first come, first served; only starts are paced, requests run concurrently.
 */
import { performance } from 'node:perf_hooks';

/** How far behind its schedule the limiter may catch up, in slots. */
const maxCatchUpSlots = 5;
/** The window of the sliding log: one second plus headroom for jitter. */
const windowMs = 1020;

export class RateLimiter {
  /** Actual start times (performance.now()) still inside the sliding window, oldest first. */
  private readonly starts: number[] = [];
  private readonly waiters: (() => void)[] = [];
  private lastStart = Number.NEGATIVE_INFINITY;
  /** The next slot of the steady schedule. */
  private nextSlot = Number.NEGATIVE_INFINITY;
  /** Whether the head waiter had to wait (else it found the way clear, and the schedule restarts now). */
  private waited = false;
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

  /** Starts allowed in the sliding window. */
  private get limit(): number {
    return Math.max(1, Math.floor(this.ratePerSecond));
  }

  private get spacingMs(): number {
    return Math.max(1000 / this.ratePerSecond, windowMs / this.limit);
  }

  /** Lets waiters through while the rules allow, then sleeps until the head waiter's slot. */
  private serve(): void {
    if (this.sleeping) return;
    while (this.waiters.length > 0) {
      const now = performance.now();
      const earliest = this.earliestStart(now);
      if (earliest > now) {
        this.waited = true;
        this.sleeping = true;
        // Timers have whole-millisecond resolution: sleep the whole milliseconds, finish the fraction on
        // setImmediate.
        const wait = earliest - now;
        if (wait < 1) setImmediate(() => this.wake());
        else setTimeout(() => this.wake(), Math.floor(wait));
        return;
      }
      // Keep to the schedule when this start was waited for (it may be late); start afresh when it was not.
      const slot = this.waited ? Math.max(this.nextSlot, now - maxCatchUpSlots * this.spacingMs) : now;
      this.waited = false;
      this.nextSlot = slot + this.spacingMs;
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
    while (this.starts.length > 0 && this.starts[0]! <= now - windowMs) this.starts.shift();
    const byGap = this.lastStart + this.spacingMs / 2;
    const byWindow = this.starts.length >= this.limit ? this.starts[this.starts.length - this.limit]! + windowMs : now;
    return Math.max(now, this.nextSlot, byGap, byWindow);
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
 * The one limiter of this process, shared by every client (the provider's limit is per partner, not per
 * client). Created at the first call; a later call with another rate changes its rate.
 */
export function sharedRateLimiter(maxRequestsPerSecond: number): RateLimiter {
  if (!processLimiter) processLimiter = new RateLimiter(maxRequestsPerSecond);
  else if (processLimiter.rate !== maxRequestsPerSecond) processLimiter.rate = maxRequestsPerSecond;
  return processLimiter;
}
