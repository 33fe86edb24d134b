/**
 * Tells a real refusal from a revoked token without a re-login per refusal. The provider answers both an
 * unknown reference and a revoked token with 400 (the provider answers every failure so). A revoked token
 * never comes back, so a call sent with the same token after the 400 arrived that succeeds proves the token
 * was alive when the 400 was given: the 400 was about the request ("not found"). A refused call waits for
 * such a proof: any other successful call with that token, or one canary call for all the refusals
 * gathered in a short while (so a batch of unknown references costs one request each, plus one canary).
 */
import { performance } from 'node:perf_hooks';

interface Waiter {
  /** When the refusal arrived (performance.now()). */
  refusedAt: number;
  settle: (alive: boolean) => void;
  fail: (error: unknown) => void;
}

/** The canary: true when the provider accepts `token` now, false when it rejects it. */
export type CanaryCall = (token: string) => Promise<boolean>;

export class TokenCanary {
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /**
   * @param gatherMs how long refusals are gathered before one canary checks them all
   * @param gatherMax refusals that send the canary at once
   */
  constructor(
    private readonly canary: CanaryCall,
    private readonly gatherMs = 200,
    private readonly gatherMax = 25,
  ) {}

  /**
   * After a call sent with `token` was refused: resolves true once the token is shown accepted by a call
   * sent after now (the refusal was real), false when the canary shows it rejected (renew and ask again).
   * Rejects when the canary itself fails (no proof either way).
   */
  refused(token: string): Promise<boolean> {
    const refusedAt = performance.now();
    return new Promise<boolean>((resolve, reject) => {
      const list = this.waiting.get(token) ?? [];
      list.push({ refusedAt, settle: resolve, fail: reject });
      this.waiting.set(token, list);
      if (list.length >= this.gatherMax) this.send(token);
      else if (!this.timers.has(token))
        this.timers.set(
          token,
          setTimeout(() => this.send(token), this.gatherMs),
        );
    });
  }

  /** A call sent with `token` at `sentAt` (performance.now()) succeeded: every refusal before it was real. */
  accepted(token: string, sentAt: number): void {
    const list = this.waiting.get(token);
    if (!list) return;
    const later = list.filter((w) => w.refusedAt > sentAt);
    for (const w of list) if (w.refusedAt <= sentAt) w.settle(true);
    if (later.length === 0) {
      this.forget(token);
      return;
    }
    this.waiting.set(token, later);
    if (!this.timers.has(token))
      this.timers.set(
        token,
        setTimeout(() => this.send(token), this.gatherMs),
      );
  }

  private send(token: string): void {
    const timer = this.timers.get(token);
    if (timer) clearTimeout(timer);
    this.timers.delete(token);
    if (!this.waiting.has(token)) return;
    const sentAt = performance.now();
    this.canary(token).then(
      (alive) => {
        if (alive) return this.accepted(token, sentAt);
        const list = this.waiting.get(token) ?? [];
        this.forget(token);
        for (const w of list) w.settle(false);
      },
      (error: unknown) => {
        const list = this.waiting.get(token) ?? [];
        this.forget(token);
        for (const w of list) w.fail(error);
      },
    );
  }

  private forget(token: string): void {
    this.waiting.delete(token);
    const timer = this.timers.get(token);
    if (timer) clearTimeout(timer);
    this.timers.delete(token);
  }
}
