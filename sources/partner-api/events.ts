/**
 * What the client tells its caller about its work: counters (for `pipeline_runs`) and structured events
 * (for logging). Neither ever holds a credential or a token.
 */

export interface ClientStats {
  /** Every HTTP attempt, token calls and retries included. */
  requests: number;
  /** Attempts repeated after a 5xx, a timeout or a dropped connection. */
  retries: number;
  /** 503 answers received (each followed by a wait of at least a second). */
  rateLimited: number;
  /** Logins with identifier and secret. */
  authentications: number;
  /** Successful token refreshes. */
  refreshes: number;
}

export type ClientEvent =
  | { type: 'retry'; endpoint: string; attempt: number; reason: string; delayMs: number }
  | { type: 'rate_limited'; endpoint: string; attempt: number; delayMs: number }
  | { type: 'authenticated'; reason: 'first' | 'refresh_failed' | 'rejected' }
  | { type: 'refreshed'; expiresInSeconds: number }
  | { type: 'reauthenticated'; endpoint: string; status: number }
  /** A write that failed without a clear answer was looked up before being tried again. */
  | { type: 'write_checked'; endpoint: string; found: boolean };

export type EventSink = (event: ClientEvent) => void;

export function emptyStats(): ClientStats {
  return { requests: 0, retries: 0, rateLimited: 0, authentications: 0, refreshes: 0 };
}

/** One human line per event, for a job's log (never a token: events hold none). */
export function describeClientEvent(event: ClientEvent): string {
  switch (event.type) {
    case 'retry':
      return (
        `${event.endpoint}: attempt ${event.attempt} failed (${event.reason}); ` +
        `retrying in ${(event.delayMs / 1000).toFixed(1)} s`
      );
    case 'rate_limited':
      return `${event.endpoint}: answered 503 (rate limited); waiting ${(event.delayMs / 1000).toFixed(1)} s`;
    case 'authenticated':
      return event.reason === 'first'
        ? 'logged in to the provider'
        : `logged in again (${event.reason === 'rejected' ? 'a token was rejected' : 'the token refresh failed'})`;
    case 'refreshed':
      return `access token refreshed (valid for ${event.expiresInSeconds} s more before the next refresh)`;
    case 'reauthenticated':
      return (
        `${event.endpoint}: answered ${event.status}; ` +
        `the token may have been revoked, renewing it and trying once more`
      );
    case 'write_checked':
      return (
        `${event.endpoint}: after an unclear failure, looked the write up: ` +
        `${event.found ? 'it went through, not sending it again' : 'not found, sending it again'}`
      );
  }
}
