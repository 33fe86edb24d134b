/**
 * The one rule that removes known secrets (API credentials and tokens, SMTP user and password) from a text
 * that a remote server sent back, whatever encoding the echo used. The encodings are generated, not listed:
 * JSON-escaped up to three times, each time with or without `\/`, `\uXXXX` for non-ASCII and `\u003c`-style
 * escapes of `< > &` (PHP's json_encode, Go's encoding/json, Python's ensure_ascii); each of those as is,
 * percent-encoded, form-encoded and in base64. Base64 runs in the text are also decoded, so a secret inside
 * a longer encoded blob (an SMTP AUTH PLAIN `\0user\0password`) is found too. (issue 18)
 */

/** Very short values would shred ordinary text; no real credential is that short. */
import { maskPin } from './masking.js';
export const minimumSecretLength = 3;

/** How many times an echo may have JSON-escaped a secret (a JSON echo of a JSON request of a JSON field). */
const maxJsonDepth = 3;

interface JsonEscapeStyle {
  slash: boolean;
  nonAscii: boolean;
  html: boolean;
}

const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One level of JSON string escaping (without the quotes), in one encoder's style. */
function jsonEscape(value: string, style: JsonEscapeStyle): string {
  let text = JSON.stringify(value).slice(1, -1);
  if (style.slash) text = text.replaceAll('/', '\\/');
  if (style.html) text = text.replace(/[<>&]/g, unicodeEscape);
  if (style.nonAscii) text = text.replace(/[\u007f-\uffff]/g, unicodeEscape);
  return text;
}

const jsonStyles: JsonEscapeStyle[] = [false, true].flatMap((slash) =>
  [false, true].flatMap((nonAscii) => [false, true].map((html) => ({ slash, nonAscii, html }))),
);

const outerEncodings: ((value: string) => string)[] = [
  (value) => value,
  (value) => encodeURIComponent(value),
  (value) => new URLSearchParams({ v: value }).toString().slice(2),
  (value) => Buffer.from(value, 'utf8').toString('base64'),
  (value) => Buffer.from(value, 'utf8').toString('base64url'),
];

const encodingsCache = new Map<string, string[]>();

/**
 * Every form in which `secret` may come back quoted: JSON-escaped 0 to 3 times (each level in any of the
 * styles above), and each of those as is, percent-encoded, form-encoded and in base64; longest first.
 */
export function secretEncodings(secret: string): string[] {
  const cached = encodingsCache.get(secret);
  if (cached) return cached;
  const jsonForms = new Set([secret]);
  let level = [secret];
  for (let depth = 0; depth < maxJsonDepth; depth++) {
    level = [...new Set(level.flatMap((form) => jsonStyles.map((style) => jsonEscape(form, style))))];
    for (const form of level) jsonForms.add(form);
  }
  const forms = new Set<string>();
  for (const form of jsonForms) for (const encode of outerEncodings) forms.add(encode(form));
  // Echoes differ in the case of \u escapes' hex digits: the text is matched with them in lower case.
  const all = [...forms].filter((form) => form.length > 0).sort((a, b) => b.length - a.length);
  if (encodingsCache.size > 256) encodingsCache.clear();
  encodingsCache.set(secret, all);
  return all;
}

/** Runs of base64 (standard or URL-safe) long enough to hide a secret. */
const base64Run = /[A-Za-z0-9+/_-]{8,}={0,2}/g;

/**
 * The text with every known secret, in every encoding `secretEncodings` generates, replaced by `***`, and
 * every base64 run whose decoded bytes hold a secret replaced too.
 */
export function redactSecrets(text: string, secrets: Iterable<string>, replacement = '***'): string {
  const known = [...new Set(secrets)].filter((secret) => secret.length >= minimumSecretLength);
  if (known.length === 0) return text;
  let out = text.replace(/\\u[0-9a-fA-F]{4}/g, (sequence) => sequence.toLowerCase());
  const forms = [...new Set(known.flatMap(secretEncodings))].sort((a, b) => b.length - a.length);
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(replacement);
  return out.replace(base64Run, (run) => (base64Hides(run, known) ? replacement : run));
}

/** Whether a base64 run, read from any of its first four characters (it may be glued to a word), holds a secret. */
function base64Hides(run: string, secrets: string[]): boolean {
  for (let skip = 0; skip < 4 && run.length - skip >= 8; skip++) {
    const bytes = Buffer.from(run.slice(skip), 'base64');
    const decoded = [bytes.toString('utf8'), bytes.toString('latin1')];
    if (secrets.some((secret) => decoded.some((text) => text.includes(secret)))) return true;
  }
  return false;
}

/** The credentials of this process's configuration (remembered when it is loaded). */
const rememberedSecrets = new Set<string>();

/** Remembers credentials so that every error recorded or printed by this process is redacted of them. */
export function rememberSecrets(values: Iterable<string | undefined>): void {
  for (const value of values)
    if (value !== undefined && value.length >= minimumSecretLength) rememberedSecrets.add(value);
}

/**
 * The last line of defence where errors leave the process (`pipeline_runs.error`, the console): the text
 * redacted of every remembered credential, whichever module's error carried it.
 */
export function redactRememberedSecrets(text: string): string {
  return rememberedSecrets.size === 0 ? text : redactSecrets(text, rememberedSecrets);
}

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
