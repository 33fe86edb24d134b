/**
 * The one queue every provider call of a job waits in (p-queue, as the design names it): it bounds how many
 * calls are in flight and decides who goes next by priority — writes (a customer waits), then the period
 * windows of the month-end, then individual look-ups, then catalog calls — so a catalog snapshot queued
 * beside a month-end never delays it. The queue orders and bounds calls; the smooth RateLimiter paces
 * every HTTP attempt inside them (p-queue's own interval/intervalCap does not hold the rolling-second
 * limit without 503s: see docs/BENCHMARKS.md, "pacing").
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import PQueue from 'p-queue';
import type { EndpointName } from '../../config/schema.js';

export type CallKind = 'write' | 'window' | 'lookup' | 'catalog';

/** Greater goes first. */
const priorities: Record<CallKind, number> = { write: 3, window: 2, lookup: 1, catalog: 0 };

/** Calls in flight at once by default: enough that latency never leaves a rate-limit slot unused. */
export const defaultConcurrency = 8;

/** What kind of call an operation is (token calls are made inside a queued call and are not queued). */
export function callKindOf(name: EndpointName): CallKind {
  switch (name) {
    case 'salesByPeriod':
      return 'window';
    case 'salesByTransactionId':
    case 'salesByPartnerReference':
    case 'salesByDocument':
      return 'lookup';
    case 'preRedeem':
    case 'reverseByTransactionId':
    case 'reverseByPartnerReference':
      return 'write';
    default:
      return 'catalog';
  }
}

export class RequestQueue {
  private readonly queue: PQueue;
  /** Set while a queued call runs: a call it makes in turn (a write's look-up) runs in its slot. */
  private readonly inside = new AsyncLocalStorage<true>();

  constructor(concurrency: number = defaultConcurrency) {
    this.queue = new PQueue({ concurrency });
  }

  /** Runs `work` when its turn comes; a call made from inside a queued call runs at once (no deadlock). */
  run<T>(kind: CallKind, work: () => Promise<T>): Promise<T> {
    if (this.inside.getStore()) return work();
    return this.queue.add(() => this.inside.run(true, work), { priority: priorities[kind] });
  }

  /** Calls waiting for their turn. */
  get waiting(): number {
    return this.queue.size;
  }

  /** Calls running now. */
  get running(): number {
    return this.queue.pending;
  }
}

let processQueue: RequestQueue | undefined;

/** The one queue of this process, shared by every client (like the rate limiter: the limit is per partner). */
export function sharedRequestQueue(): RequestQueue {
  processQueue ??= new RequestQueue();
  return processQueue;
}
