/**
 * The retry policy around every provider attempt: 503 (or 429) waits ≥ 1 s (jitter, or a longer Retry-After),
 * counted apart, up to `api.maxRateLimitedRetries`; other 5xx, timeouts, dropped connections and truncated bodies
 * back off exponentially up to `api.maxRetries`. Then a ProviderError saying what failed and what to do.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiConfig } from '../../config/schema.js';
import { AttemptFailure } from './attempt-failure.js';
import { describeEndpoint, type Endpoint } from './endpoints.js';
import { quoteBody, ProviderError } from './errors.js';
import type { ClientStats, EventSink } from './events.js';

/** Backoff before retry number `n` (1-based): 250 ms doubling up to 8 s, with "equal jitter" (half random). */
function backoffMs(n: number): number {
  const ceiling = Math.min(8_000, 250 * 2 ** (n - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** The wait after a 503: at least a second (or the Retry-After asked for), plus up to half a second of jitter. */
function rateLimitedWaitMs(retryAfterMs?: number): number {
  return Math.max(1_000, retryAfterMs ?? 0) + Math.round(Math.random() * 500);
}

export class RetryPolicy {
  constructor(
    private readonly api: ApiConfig,
    private readonly stats: ClientStats,
    private readonly emit: EventSink,
    /** Values to redact from any body quoted in an error (credentials, tokens). */
    private readonly secrets: () => Iterable<string>,
  ) {}

  /**
   * Runs `attempt` until it returns, retrying AttemptFailures as the policy says. `attempt` receives the
   * previous failure, so a write can look itself up before being sent again. With `once` (a reversal, issue 34)
   * a failure that may have reached the provider is never retried: only a 503 (not processed) or a host not
   * reached are; anything else is a ProviderError marked `unclear` at once.
   */
  async run<T>(
    endpoint: Endpoint,
    attempt: (previous?: AttemptFailure) => Promise<T>,
    options: { once?: boolean } = {},
  ): Promise<T> {
    let failures = 0;
    let rateLimitedInARow = 0;
    let previous: AttemptFailure | undefined;
    for (let attemptNumber = 1; ; attemptNumber++) {
      try {
        return await attempt(previous);
      } catch (error) {
        if (!(error instanceof AttemptFailure)) throw error;
        previous = error;
        if (error.kind === 'rate_limited') {
          this.stats.rateLimited++;
          if (++rateLimitedInARow > this.api.maxRateLimitedRetries)
            throw this.gaveUp(endpoint, error, rateLimitedInARow - 1);
          const delayMs = rateLimitedWaitMs(error.retryAfterMs);
          this.emit({ type: 'rate_limited', endpoint: endpoint.name, attempt: attemptNumber, delayMs });
          await sleep(delayMs);
          continue;
        }
        rateLimitedInARow = 0;
        if (options.once && error.ambiguous) throw this.unclear(endpoint, error);
        if (++failures > this.api.maxRetries) throw this.gaveUp(endpoint, error, failures - 1);
        this.stats.retries++;
        const delayMs = backoffMs(failures);
        this.emit({ type: 'retry', endpoint: endpoint.name, attempt: attemptNumber, reason: error.message, delayMs });
        await sleep(delayMs);
      }
    }
  }

  /** A write sent once whose answer did not say whether it took effect. */
  private unclear(endpoint: Endpoint, failure: AttemptFailure): ProviderError {
    const where = `${describeEndpoint(endpoint)} at ${new URL(this.api.baseUrl).origin}`;
    return new ProviderError(
      `${where} gave no clear answer (${failure.kind.replace('_', ' ')}); it is not sent again.`,
      {
        endpoint: endpoint.name,
        status: failure.status,
        ...(failure.body !== undefined && { body: quoteBody(failure.body, this.secrets()) }),
        unclear: true,
        cause: failure,
        hint: 'It may have taken effect: the sale is read to settle it, and it is asked again only by a later run.',
      },
    );
  }

  private gaveUp(endpoint: Endpoint, failure: AttemptFailure, retries: number): ProviderError {
    const where = `${describeEndpoint(endpoint)} at ${new URL(this.api.baseUrl).origin}`;
    const body = failure.body === undefined ? undefined : quoteBody(failure.body, this.secrets());
    const details = { endpoint: endpoint.name, status: failure.status, body, cause: failure };
    switch (failure.kind) {
      case 'rate_limited':
        return new ProviderError(`${where} was still answered 503 (rate limited) after ${retries} waits.`, {
          ...details,
          hint: 'The 50/s limit is shared with the live shop: lower api.maxRequestsPerSecond or run the job later.',
        });
      case 'slow_download':
        // A download cut for trickling or for its whole length says so, with its own settings (issue 34).
        return new ProviderError(`${where} was cut ${retries + 1} times: ${failure.message}.`, {
          ...details,
          hint:
            'The provider sends the window too slowly: try again later, or lower api.minDownloadBytesPerSecond ' +
            'or raise api.downloadTimeoutMs.',
        });
      case 'timeout':
        return new ProviderError(
          `${where} gave no answer within api.timeoutMs (${this.api.timeoutMs} ms), ${retries + 1} times.`,
          {
            ...details,
            hint: 'The provider is slow or down: try again later, or raise api.timeoutMs.',
          },
        );
      case 'unreachable':
        return new ProviderError(`${where} could not be reached (${failure.message}), ${retries + 1} times.`, {
          ...details,
          hint: 'Check api.baseUrl (env PINRECON_API_BASE_URL) and that the provider is up.',
        });
      default:
        return new ProviderError(`${where} failed after ${retries} retries: ${failure.message}`, {
          ...details,
          hint:
            'The provider is failing; try again later (a re-run resumes where this one stopped). ' +
            'Raise api.maxRetries to insist longer.',
        });
    }
  }
}
