/**
 * The upstream's failures as one named error, and the redaction that keeps credentials, tokens and PINs
 * out of every message, event and log line built from what the upstream sent back.
 */
import { JobError } from '../../core/errors.js';
import { maskPin } from '../../core/masking.js';
import { redactSecrets } from '../../core/secret-redaction.js';

/** An upstream operation that failed for good: which endpoint, what status, what the upstream said (redacted). */
export class UpstreamError extends JobError {
  override name = 'UpstreamError';
  readonly endpoint: string;
  readonly status?: number;
  /** The response body, redacted and cut to a readable length. */
  readonly body?: string;

  constructor(
    message: string,
    details: { endpoint: string; status?: number; body?: string; hint?: string; cause?: unknown },
  ) {
    super(message, details.hint, details.cause === undefined ? undefined : { cause: details.cause });
    this.endpoint = details.endpoint;
    if (details.status !== undefined) this.status = details.status;
    if (details.body !== undefined) this.body = details.body;
  }
}

/** Longest response body quoted in an error. */
const maxQuotedBody = 2_000;

/** Field names whose values are credentials or tokens, wherever they appear in a JSON body or query. */
const secretFields =
  /("?(?:accessToken|refreshToken|access_token|refresh_token|token|secret|password|identifier|authorization)"?\s*[:=]\s*"?)([^"&,}\s]+)/gi;
/** A JSON Web Token anywhere in a text. */
const jsonWebToken = /\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g;
const bearer = /(Bearer\s+)[\w.~+/=-]+/gi;
/** The PIN of a sales or pre-redeem record: only its last 4 characters may leave the database. */
const pinField = /("key"\s*:\s*")([^"]*)(")/g;

/**
 * Removes every known secret (the configured credentials, tokens seen this session) in every encoding an echo
 * may use (core/secret-redaction.ts) and anything that looks like one (JWTs, bearer headers, token/secret
 * fields) from a text; masks PINs to their last 4 characters.
 */
export function redact(text: string, knownSecrets: Iterable<string> = []): string {
  return redactSecrets(text, knownSecrets)
    .replace(jsonWebToken, '***')
    .replace(bearer, '$1***')
    .replace(secretFields, '$1***')
    .replace(pinField, (_match, open: string, pin: string, close: string) => `${open}${maskPin(pin)}${close}`);
}

/** How much of a body is redacted before it is cut to `maxQuotedBody` (an error body may be up to api.maxAnswerBytes). */
const maxRedactedBody = 64 * 1024;

/** A response body fit for an error message: redacted, one line, at most a couple of thousand characters. */
export function quoteBody(body: string, knownSecrets: Iterable<string> = []): string {
  const clean = redact(body.slice(0, maxRedactedBody), knownSecrets).replace(/\s+/g, ' ').trim();
  const length = body.length > maxRedactedBody ? body.length : clean.length;
  return clean.length > maxQuotedBody ? `${clean.slice(0, maxQuotedBody)}… (${length} characters)` : clean;
}
