/**
 * What happens to a request before it reaches an operation: the rate limit (a sliding log of the requests
 * accepted in the last 1000 ms, so the limit holds in ANY rolling second, not per clock second) and the
 * injected faults (a seeded sequence, so a run with the same seed and the same request order replays them).
 */
import { SeededRandom } from './random.js';

export class SlidingWindowLimiter {
  private readonly accepted: number[] = [];
  private head = 0;
  /** The most requests accepted within any 1000 ms so far. */
  maxInAnyWindow = 0;

  constructor(
    private limit: number,
    private readonly windowMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  setLimit(limit: number): void {
    this.limit = limit;
  }

  /** Accepts (and records) a request, or returns false when `limit` were accepted in the last window. */
  tryAccept(): boolean {
    const now = this.now();
    while (this.head < this.accepted.length && this.accepted[this.head]! <= now - this.windowMs) this.head++;
    if (this.head > 1024) {
      this.accepted.splice(0, this.head); // keep the log small
      this.head = 0;
    }
    const inWindow = this.accepted.length - this.head;
    if (inWindow >= this.limit) return false;
    this.accepted.push(now);
    this.maxInAnyWindow = Math.max(this.maxInAnyWindow, inWindow + 1);
    return true;
  }
}

export interface FaultOptions {
  /** Share of accepted requests answered 503 as if rate-limited (0–1). Default 0. */
  error503Rate?: number;
  /** Share answered 500. Default 0. */
  error500Rate?: number;
  /** Share whose connection is destroyed, half before responding and half mid-response. Default 0. */
  dropRate?: number;
  /** Share delayed by `slowMs` before being handled. Default 0. */
  slowRate?: number;
  /** Delay of a slow response. Default 2000. */
  slowMs?: number;
  /** Revoke every issued token every N seconds. Default 0 = never. */
  revokeEverySeconds?: number;
  /**
   * Revoke every token right after these logins (1 = the first login): the token just handed out is dead
   * before it is used, as when another process logs in with the same credentials. Default none.
   */
  revokeAfterLogins?: number[];
}

export interface FaultDecision {
  drop?: 'before-response' | 'mid-response';
  status?: 503 | 500;
  delayMs: number;
}

export class FaultInjector {
  private readonly random: SeededRandom;
  faults: FaultOptions;

  constructor(seed: number, faults: FaultOptions = {}) {
    this.random = new SeededRandom(seed ^ 0x0fa017);
    this.faults = validateFaults(faults);
  }

  set(faults: FaultOptions): void {
    this.faults = validateFaults(faults);
  }

  /** The fate of the next accepted request. Always draws the same count of numbers, whatever the rates. */
  decide(): FaultDecision {
    const [drop, dropMode, e503, e500, slow] = [0, 0, 0, 0, 0].map(() => this.random.next()) as [
      number,
      number,
      number,
      number,
      number,
    ];
    const f = this.faults;
    const delayMs = slow < (f.slowRate ?? 0) ? (f.slowMs ?? 2000) : 0;
    if (drop < (f.dropRate ?? 0)) return { drop: dropMode < 0.5 ? 'before-response' : 'mid-response', delayMs };
    if (e503 < (f.error503Rate ?? 0)) return { status: 503, delayMs };
    if (e500 < (f.error500Rate ?? 0)) return { status: 500, delayMs };
    return { delayMs };
  }
}

function validateFaults(faults: FaultOptions): FaultOptions {
  for (const key of ['error503Rate', 'error500Rate', 'dropRate', 'slowRate'] as const) {
    const value = faults[key];
    if (value !== undefined && !(value >= 0 && value <= 1))
      throw new RangeError(`faults.${key} must be between 0 and 1, got ${value}`);
  }
  for (const key of ['slowMs', 'revokeEverySeconds'] as const) {
    const value = faults[key];
    if (value !== undefined && !(value >= 0 && Number.isFinite(value)))
      throw new RangeError(`faults.${key} must be a number ≥ 0, got ${value}`);
  }
  return { ...faults };
}
