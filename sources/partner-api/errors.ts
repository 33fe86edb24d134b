/**
 * The upstream's failures as one named error, and the redaction that keeps credentials, tokens and PINs
 * out of every message, event and log line built from what the upstream sent back.
 */
import { JobError } from '../../core/errors.js';
import { maskPin } from '../../core/masking.js';

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
const secretFields = /("?(?:accessToken|refreshToken|access_token|refresh_token|token|secret|password|identifier|authorization)"?\s*[:=]\s*"?)([^"&,}\s]+)/gi;
/** A JSON Web Token anywhere in a text. */
const jsonWebToken = /\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g;
const bearer = /(Bearer\s+)[\w.~+/=-]+/gi;
/** The PIN of a sales or pre-redeem record: only its last 4 characters may leave the database. */
const pinField = /("key"\s*:\s*")([^"]*)(")/g;

/**
 * Removes every known secret (the configured credentials, tokens seen this session) and anything that looks
 * like one (JWTs, bearer headers, token/secret fields) from a text; masks PINs to their last 4 characters.
 */
export function redact(text: string, knownSecrets: Iterable<string> = []): string {
  let out = text;
  // Very short values would shred ordinary text; no real credential is that short.
  const forms = [...knownSecrets].filter((secret) => secret.length >= 3).flatMap(secretForms);
  // Longest first, so a form is not cut apart by a shorter one it contains.
  for (const form of [...new Set(forms)].sort((a, b) => b.length - a.length)) out = out.split(form).join('***');
  return out
    .replace(jsonWebToken, '***')
    .replace(bearer, '$1***')
    .replace(secretFields, '$1***')
    .replace(pinField, (_match, open: string, pin: string, close: string) => `${open}${maskPin(pin)}${close}`);
}

/**
 * The ways a secret may come back quoted in a body: as is, JSON-escaped (once or twice: a JSON echo of a
 * JSON request; also with \uXXXX for non-ASCII and \/ for "/"), percent-encoded and form-encoded.
 */
function secretForms(secret: string): string[] {
  const escapes = [
    (value: string) => JSON.stringify(value).slice(1, -1),
    (value: string) => value.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    (value: string) => value.replaceAll('/', '\\/'),
  ];
  // Every combination of up to three escapes, in any order (a JSON echo of a JSON request escapes twice).
  let level = [secret];
  const forms = new Set(level);
  for (let depth = 0; depth < 3; depth++) {
    level = level.flatMap((form) => escapes.map((escape) => escape(form))).filter((form) => !forms.has(form));
    for (const form of level) forms.add(form);
  }
  const jsonOnce = escapes[0]!(secret);
  for (const value of [secret, jsonOnce]) forms.add(encodeURIComponent(value)).add(new URLSearchParams({ v: value }).toString().slice(2));
  return [...forms];
}

/** A response body fit for an error message: redacted, one line, at most a couple of thousand characters. */
export function quoteBody(body: string, knownSecrets: Iterable<string> = []): string {
  const clean = redact(body, knownSecrets).replace(/\s+/g, ' ').trim();
  return clean.length > maxQuotedBody ? `${clean.slice(0, maxQuotedBody)}… (${clean.length} characters)` : clean;
}
