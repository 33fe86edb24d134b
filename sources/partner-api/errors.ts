/**
 * The provider's failures as one named error, and the redaction that keeps credentials, tokens and PINs
 * out of every message, event and log line built from what the provider sent back.
 */
import { JobError } from '../../core/errors.js';
import { keepBody } from '../../core/debug-bodies.js';
import { bodyDigest, redact } from '../../core/secret-redaction.js';

/** A provider operation that failed for good: which endpoint, what status, what the provider said (redacted). */
export class ProviderError extends JobError {
  override name = 'ProviderError';
  readonly endpoint: string;
  readonly status?: number;
  /** What is said of the response body: its size and digest (quoteBody), never its text. */
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

/**
 * What an error says of a response body: its size and digest, never its text (issue 34: an echo of the secret in
 * an encoding the redaction did not know reached the console and `pipeline_runs.error`). The whole body is kept
 * only in `--debug`'s private file. `knownSecrets` are still redacted from what is said, as a second line.
 */
export function quoteBody(body: string, knownSecrets: Iterable<string> = []): string {
  keepBody('provider error answer', body);
  return redact(bodyDigest(body), knownSecrets);
}
