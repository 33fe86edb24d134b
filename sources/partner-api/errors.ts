/**
 * The upstream's failures as one named error, and the redaction that keeps credentials, tokens and PINs
 * out of every message, event and log line built from what the upstream sent back.
 */
import { JobError } from '../../core/errors.js';
import { redact } from '../../core/secret-redaction.js';

/** An upstream operation that failed for good: which endpoint, what status, what the upstream said (redacted). */
export class UpstreamError extends JobError {
  override name = 'UpstreamError';
  readonly endpoint: string;
  readonly status?: number;
  /** The response body, redacted and cut to a readable length. */
  readonly body?: string;
  /** A write whose outcome is unknown (a timeout, a 5xx, a dropped connection): it may have taken effect. */
  readonly unclear: boolean;
  /** An answer about another record than the one asked (issue 34). */
  readonly foreign: boolean;

  constructor(
    message: string,
    details: {
      endpoint: string;
      status?: number;
      body?: string;
      hint?: string;
      cause?: unknown;
      unclear?: boolean;
      foreign?: boolean;
    },
  ) {
    super(message, details.hint, details.cause === undefined ? undefined : { cause: details.cause });
    this.endpoint = details.endpoint;
    this.unclear = details.unclear ?? false;
    this.foreign = details.foreign ?? false;
    if (details.status !== undefined) this.status = details.status;
    if (details.body !== undefined) this.body = details.body;
  }
}

/** Longest response body quoted in an error. */
const maxQuotedBody = 2_000;

/** How much of a body is redacted before it is cut to `maxQuotedBody` (an error body may be up to api.maxAnswerBytes). */
const maxRedactedBody = 64 * 1024;

/** A response body fit for an error message: redacted, one line, at most a couple of thousand characters. */
export function quoteBody(body: string, knownSecrets: Iterable<string> = []): string {
  const clean = redact(body.slice(0, maxRedactedBody), knownSecrets).replace(/\s+/g, ' ').trim();
  const length = body.length > maxRedactedBody ? body.length : clean.length;
  return clean.length > maxQuotedBody ? `${clean.slice(0, maxQuotedBody)}… (${length} characters)` : clean;
}
