/**
 * The one rule that removes known secrets (API credentials and tokens, SMTP user and password) from a text
 * that a remote server sent back, whatever encoding the echo used. The encodings are generated, not listed:
 * JSON-escaped up to three times, each time with or without `\/`, `\uXXXX` for non-ASCII and `\u003c`-style
 * escapes of `< > &` (PHP's json_encode, Go's encoding/json, Python's ensure_ascii); each of those as is,
 * percent-encoded, form-encoded and in base64. Base64 runs in the text are also decoded, so a secret inside
 * a longer encoded blob (an SMTP AUTH PLAIN `\0user\0password`) is found too. (issue 18)
 */

import { createHash } from 'node:crypto';
import { maskPin } from './masking.js';
import { escapeHtml } from './text-safety.js';

/** Very short values would shred ordinary text; no real credential is that short. */
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

const percentOf = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
/** Python's urllib.parse.quote: `!'()*` escaped too, `/` left as it is (its default `safe`). */
const pythonQuote = (value: string) =>
  encodeURIComponent(value)
    .replace(/[!'()*]/g, percentOf)
    .replaceAll('%2F', '/');

/** Ways a whole (JSON-escaped) secret may be written again (issue 18, issue 34 for Python, HTML, hex and \u). */
const outerEncodings: ((value: string) => string)[] = [
  (value) => value,
  (value) => encodeURIComponent(value),
  pythonQuote,
  (value) => pythonQuote(value).replaceAll('/', '%2F').replaceAll('%20', '+'),
  (value) => new URLSearchParams({ v: value }).toString().slice(2),
  (value) => Buffer.from(value, 'utf8').toString('base64'),
  (value) => Buffer.from(value, 'utf8').toString('base64url'),
  escapeHtml,
  (value) => value.replace(/[^A-Za-z0-9]/g, (c) => `&#${c.codePointAt(0)};`),
  (value) => value.replace(/[^A-Za-z0-9]/g, (c) => `&#x${c.codePointAt(0)!.toString(16)};`),
  (value) => value.replace(/[\s\S]/g, unicodeEscape),
];

const encodingsCache = new Map<string, string[]>();
const jsonFormsCache = new Map<string, string[]>();

/** The secret JSON-escaped 0 to 3 times, in every style: what a decoded base64 or hex run may hold. */
function jsonFormsOf(secret: string): string[] {
  const cached = jsonFormsCache.get(secret);
  if (cached) return cached;
  const jsonForms = new Set([secret]);
  let level = [secret];
  for (let depth = 0; depth < maxJsonDepth; depth++) {
    level = [...new Set(level.flatMap((form) => jsonStyles.map((style) => jsonEscape(form, style))))];
    for (const form of level) jsonForms.add(form);
  }
  const all = [...jsonForms].map(normalizeEscapes);
  if (jsonFormsCache.size > 256) jsonFormsCache.clear();
  jsonFormsCache.set(secret, all);
  return all;
}

/** Escapes whose hex digits echoes write in either case, in one case: `\u00e9`, `%C3%A9`, `&#x2f;`. */
function normalizeEscapes(text: string): string {
  return text
    .replace(/\\u[0-9a-fA-F]{4}/g, (sequence) => sequence.toLowerCase())
    .replace(/%[0-9a-fA-F]{2}/g, (sequence) => sequence.toUpperCase())
    .replace(/&#[xX][0-9a-fA-F]+;/g, (sequence) => sequence.toLowerCase());
}

/**
 * Every form in which `secret` may come back quoted: JSON-escaped 0 to 3 times (each level in any of the
 * styles above), and each of those as is, percent-encoded, form-encoded and in base64; longest first.
 */
export function secretEncodings(secret: string): string[] {
  const cached = encodingsCache.get(secret);
  if (cached) return cached;
  const forms = new Set<string>();
  for (const form of jsonFormsOf(secret))
    for (const encode of outerEncodings) forms.add(normalizeEscapes(encode(form)));
  // Echoes differ in the case of escapes' hex digits: forms and text are matched with one case (normalizeEscapes).
  const all = [...forms].filter((form) => form.length > 0).sort((a, b) => b.length - a.length);
  if (encodingsCache.size > 256) encodingsCache.clear();
  encodingsCache.set(secret, all);
  return all;
}

/**
 * What is kept of a remote server's error body: its size and the first 16 hex digits of its sha256, never its
 * text (issue 34: a clever echo got secrets past every redaction). The whole body goes only to `--debug`'s file.
 */
export function bodyDigest(body: string): string {
  if (body.length === 0) return 'no body';
  const digest = createHash('sha256').update(body, 'utf8').digest('hex').slice(0, 16);
  return `a body of ${Buffer.byteLength(body, 'utf8')} bytes, sha256 ${digest}`;
}

/** Runs of base64 (standard or URL-safe) long enough to hide a secret. */
const base64Run = /[A-Za-z0-9+/_-]{8,}={0,2}/g;
/** Runs of hex digits long enough to hide a secret (4 bytes). */
const hexRun = /[0-9a-fA-F]{8,}/g;
/** Where an SMTP reply goes on over lines (`535-5.7.8 …` then `535 …`): a secret may be cut across them. */
const replyContinuation = /\r?\n\d{3}[ -](?:\d\.\d{1,3}\.\d{1,3} )?/g;

/**
 * The text with every known secret, in every encoding `secretEncodings` generates, replaced by `***`, and
 * every base64 run whose decoded bytes hold a secret replaced too.
 */
export function redactSecrets(text: string, secrets: Iterable<string>, replacement = '***'): string {
  const known = [...new Set(secrets)].filter((secret) => secret.length >= minimumSecretLength);
  if (known.length === 0) return text;
  let out = normalizeEscapes(text);
  const forms = [...new Set(known.flatMap(secretEncodings))].sort((a, b) => b.length - a.length);
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(replacement);
  const json = known.flatMap(jsonFormsOf);
  out = out
    .replace(base64Run, (run) => (base64Hides(run, json) ? replacement : run))
    .replace(hexRun, (run) =>
      decodedHolds([Buffer.from(run.slice(run.length % 2), 'hex')], json) ? replacement : run,
    );
  // A multi-line reply quoting a secret piecewise, a piece a line (issue 34): nothing of it is kept.
  const joined = out.replace(replyContinuation, '');
  if (joined !== out && forms.some((form) => joined.includes(form))) return replacement;
  return out;
}

/** Whether bytes decoded (as UTF-8 or Latin-1) hold a secret in one of its JSON forms. */
function decodedHolds(candidates: Buffer[], jsonForms: string[]): boolean {
  for (const bytes of candidates) {
    const decoded = [bytes.toString('utf8'), bytes.toString('latin1')].map(normalizeEscapes);
    if (jsonForms.some((form) => decoded.some((text) => text.includes(form)))) return true;
  }
  return false;
}

/**
 * Whether a base64 run, read from any of its first four characters (it may be glued to a word), holds a secret
 * (JSON-escaped too: the base64 of a JSON request holding it, issue 34).
 */
function base64Hides(run: string, jsonForms: string[]): boolean {
  const candidates: Buffer[] = [];
  for (let skip = 0; skip < 4 && run.length - skip >= 8; skip++)
    candidates.push(Buffer.from(run.slice(skip), 'base64'));
  return decodedHolds(candidates, jsonForms);
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
const secretFieldNames =
  'accessToken|refreshToken|access_token|refresh_token|token|secret|password|identifier|authorization';
const secretFields = new RegExp(`("?(?:${secretFieldNames})"?\\s*[:=]\\s*"?)([^"&,}\\s]+)`, 'gi');
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
