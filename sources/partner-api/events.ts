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
