/**
 * Issue 18 item 2: an upstream that echoes the token request (whose JSON already escapes the secret once)
 * escaped again the way other languages' JSON encoders escape (PHP's `\/` and `\u00e9`, Go's `\u003c`), once
 * or twice, percent-encoded or in base64, never gets the secret or the identifier into an error. The
 * encoders here are written apart from the product's.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PartnerApiClient } from '../../../sources/partner-api/client.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';
import { redactSecrets } from '../../../core/secret-redaction.js';
import { apiConfig, closeScripted, failure, running } from '../../support/scripted-upstream.js';

afterEach(closeScripted);

const secret = 'Sx9"q/é\\u<>&+ %41zz=kk';
const identifier = 'idént/<7>';

/** JSON string escaping as other encoders write it (without the quotes). */
const encoders: Record<string, (value: string) => string> = {
  javascript: (value) => JSON.stringify(value).slice(1, -1),
  php: (value) =>
    JSON.stringify(value)
      .slice(1, -1)
      .replaceAll('/', '\\/')
      .replace(/[^\x00-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  go: (value) =>
    JSON.stringify(value)
      .slice(1, -1)
      .replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  pythonAscii: (value) =>
    JSON.stringify(value)
      .slice(1, -1)
      .replace(/[^\x00-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`),
  phpHexTags: (value) =>
    JSON.stringify(value)
      .slice(1, -1)
      .replaceAll('/', '\\/')
      .replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)
      .replace(/[^\x00-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
};

const echoes: [string, (body: string) => string][] = [
  ...Object.entries(encoders).flatMap(([name, encode]): [string, (body: string) => string][] => [
    [`${name} once`, (body) => `{"error":"bad request","echo":"${encode(body)}"}`],
    [`${name} twice`, (body) => `{"error":"${encode(`{"echo":"${encode(body)}"}`)}"}`],
  ]),
  ['php then go', (body) => `"${encoders.go!(encoders.php!(body))}"`],
  ['percent-encoded', (body) => `bad request: ${encodeURIComponent(body)}`],
  [
    'form-encoded',
    (body) => `bad request: ${new URLSearchParams(JSON.parse(body) as Record<string, string>).toString()}`,
  ],
  ['base64', (body) => `bad request: ${Buffer.from(body).toString('base64')}`],
  [
    'base64 of the secret alone',
    (body) => `bad: ${Buffer.from(String((JSON.parse(body) as { secret: string }).secret)).toString('base64')}`,
  ],
];

describe('an upstream echoing the credentials in another encoder’s escaping', () => {
  it.each(echoes)('redacts the secret and the identifier echoed %s', async (_name, echo) => {
    let seen = '';
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen = echo(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(seen);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    running.push({
      close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = new PartnerApiClient(apiConfig(url, { identifier, secret, maxRetries: 0 }), {
      limiter: new RateLimiter(1000),
    });
    running.push(client);

    const error = await failure(client.catalogTree());
    const shown = `${error.message} ${error.hint ?? ''} ${error.body ?? ''}`;
    expect(seen).toMatch(/41zz|JTQxenp|Qxeno|NDF6e/); // the echo did carry the secret
    // Issue 34: the body itself is never shown, only its size and digest (redaction is the second line, below).
    expect(shown).toMatch(/a body of \d+ bytes, sha256 [0-9a-f]{16}/);
    // "41zz" survives every JSON and percent-encoding of the secret; "zz=kk" its form-encoding.
    expect(shown).not.toMatch(/41zz|zz%3Dkk|zz=kk/);
    expect(shown).not.toContain(Buffer.from(secret).toString('base64').slice(0, 12));
    expect(shown).not.toMatch(/id(é|\\\\*u00e9|%C3%A9)nt/i);
  });
});

describe('redactSecrets', () => {
  it('finds a secret inside a longer base64 blob, glued to a word or not', () => {
    const blob = Buffer.from(`\0alice\0${secret}`).toString('base64');
    expect(redactSecrets(`535 5.7.8 bad credentials ${blob}`, [secret])).toBe('535 5.7.8 bad credentials ***');
    expect(redactSecrets(`credentials${blob}`, [secret])).toBe('***');
  });

  // Issue 34: the forms a hostile echo used to get the secret past the redaction, each written apart from it.
  const request = JSON.stringify({ identifier: 'me', secret });
  const pythonQuote = (value: string) =>
    encodeURIComponent(value)
      .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .replaceAll('%2F', '/');
  const hostileForms: [string, string][] = [
    ['Python quote', pythonQuote(secret)],
    ['Python quote_plus', pythonQuote(secret).replaceAll('/', '%2F').replaceAll('%20', '+')],
    ['lower-case percent hex', encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())],
    ['base64 of the JSON request', Buffer.from(request).toString('base64')],
    ['HTML entities', secret.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`)],
    ['decimal entities', secret.replace(/[^A-Za-z0-9]/g, (c) => `&#${c.codePointAt(0)};`)],
    ['hex entities', secret.replace(/[^A-Za-z0-9]/g, (c) => `&#X${c.codePointAt(0)!.toString(16).toUpperCase()};`)],
    ['hex', Buffer.from(secret).toString('hex')],
    ['upper-case hex of the request', Buffer.from(request).toString('hex').toUpperCase()],
    [
      '\\u escapes',
      [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`).join(''),
    ],
  ];
  it.each(hostileForms)('redacts the secret echoed as %s', (_name, form) => {
    const redacted = redactSecrets(`bad request: ${form} (see docs)`, [secret]);
    expect(redacted).toContain('***');
    expect(redacted).not.toContain(form);
    expect(redacted).toMatch(/^bad request: .*\(see docs\)$/);
  });

  it('a multi-line SMTP reply quoting the password piecewise is not kept at all', () => {
    const pieces = [secret.slice(0, 7), secret.slice(7, 14), secret.slice(14)];
    const reply = [
      '535-5.7.8 Username and Password not accepted',
      ...pieces.map((p) => `535-5.7.8 ${p}`),
      '535 5.7.8 bye',
    ];
    expect(redactSecrets(reply.join('\r\n'), [secret])).toBe('***');
  });

  it('leaves ordinary text, and secrets shorter than 3 characters, alone', () => {
    const text = 'the upstream said: bad request (code 400), try again in 2 s; see /docs/errors#400';
    expect(redactSecrets(text, ['ab', 'zz'])).toBe(text);
    expect(redactSecrets(text, ['not-in-it'])).toBe(text);
  });
});
