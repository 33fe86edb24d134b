/**
 * The upstream client against a scripted upstream on 127.0.0.1 (test/support/scripted-upstream.ts): endpoint
 * templates, writes never blindly repeated, reversals, lookups, and the streamed download of a period.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ConfigError } from '../../../core/errors.js';
import { bodyDigest } from '../../../core/secret-redaction.js';
import { configSchema } from '../../../config/schema.js';
import { describeClientEvent, PartnerApiClient } from '../../../sources/partner-api/client.js';
import { expandEndpoint, parseEndpoint } from '../../../sources/partner-api/endpoints.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';
import { afterAll, describe, it } from 'vitest';
import { closeScripted, IDENTIFIER, json, authorized, sale, setup, failure } from '../../support/scripted-upstream.js';

// Each test starts its own upstream and client; the tests run concurrently (most of their time is waiting out
// back-offs and time-outs), so everything is closed once, at the end.
afterAll(closeScripted);

describe.concurrent('endpoint templates', () => {
  it('expands parameters URL-encoded, keeping the base URL path', ({ expect }) => {
    const endpoint = parseEndpoint('salesByPartnerReference', 'GET /v2/sales/ref/{partnerReferenceId}');
    const url = expandEndpoint(
      'http://h:1/api/',
      endpoint,
      { partnerReferenceId: 'PO 12/3?x=ü' },
      { flag: true, skip: undefined },
    );
    expect(url.href).toBe('http://h:1/api/v2/sales/ref/PO%2012%2F3%3Fx%3D%C3%BC?flag=true');
  });

  it('rejects templates that miss or invent parameters, naming the config key', ({ expect }) => {
    expect(() => parseEndpoint('salesByPeriod', 'GET /sales/{startDate}')).toThrow(
      /api\.endpoints\.salesByPeriod.*lacks \{finishDate\}/,
    );
    expect(() => parseEndpoint('catalogTree', 'GET /catalog/{country}')).toThrow(
      /api\.endpoints\.catalogTree.*unknown \{country\}/,
    );
    expect(() => parseEndpoint('preRedeem', 'pre-redeem')).toThrow(ConfigError);
  });

  it('calls configured custom paths with the common catalog query from config unless overridden', async ({
    expect,
  }) => {
    const { upstream, client } = await setup(
      (hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        if (hit.path === '/x/stock/55') return json(res, 200, { hasStock: true, amount: -1 });
        if (hit.path === '/x/sales/2024-03-01/2024-03-31') return json(res, 200, [sale(1, 'PO-1')]);
        json(res, 404, {});
      },
      {
        country: 'PT',
        currency: 'EUR',
        language: 'pt-PT',
        endpoints: { productStock: 'GET /x/stock/{productId}', salesByPeriod: 'GET /x/sales/{startDate}/{finishDate}' },
      },
    );
    expect(await client.productStock(55)).toEqual({ hasStock: true, amount: -1 });
    expect(await client.productStock(55, { currency: 'USD' })).toEqual({ hasStock: true, amount: -1 });
    expect(await client.salesByPeriod('2024-03-01', '2024-03-31', true)).toHaveLength(1);
    const [first, second] = upstream.hitsOn('/x/stock/55');
    expect(Object.fromEntries(first!.query)).toEqual({ country: 'PT', currency: 'EUR', language: 'pt-PT' });
    expect(Object.fromEntries(second!.query)).toEqual({ country: 'PT', currency: 'USD', language: 'pt-PT' });
    expect(upstream.hitsOn('/x/sales/2024-03-01/2024-03-31')[0]!.query.get('searchIsByCreateDate')).toBe('true');
  });

  it('says which credential is missing, naming the key and the environment variable', ({ expect }) => {
    const api = configSchema.parse({ api: { identifier: IDENTIFIER } }).api;
    expect(() => new PartnerApiClient(api, { limiter: new RateLimiter(10) })).toThrow(ConfigError);
    expect(() => new PartnerApiClient(api, { limiter: new RateLimiter(10) })).toThrow(
      /api\.secret.*PINRECON_API_SECRET/,
    );
    const none = configSchema.parse({}).api;
    expect(() => new PartnerApiClient(none, { limiter: new RateLimiter(10) })).toThrow(
      /api\.identifier.*PINRECON_API_IDENTIFIER/,
    );
  });
});

describe.concurrent('writes are never blindly repeated', () => {
  it('looks a pre-redeem up after a dropped answer instead of sending it again', async ({ expect }) => {
    const booked: SalesRecord[] = [];
    const { upstream, client, events } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path === '/pre-redeem') {
        booked.push({ ...sale(900 + booked.length, String(hit.body.partnerReference), 'delivered'), key: 'ZZZZ-9876' });
        return void res.socket?.destroy(); // processed, but the answer is lost
      }
      if (hit.path.startsWith('/sales/partner-reference/')) {
        const reference = decodeURIComponent(hit.path.split('/').pop()!);
        return json(
          res,
          200,
          booked.filter((s) => s.partnerReference === reference),
        );
      }
      json(res, 404, {});
    });
    const result = await client.preRedeem({ productId: 7, partnerReference: 'PO 77/1' });
    expect(upstream.hitsOn('/pre-redeem')).toHaveLength(1);
    expect(result).toEqual({
      status: 'delivered',
      transaction: { transactionId: 900, key: 'ZZZZ-9876', partnerReference: 'PO 77/1' },
    });
    expect(events).toContainEqual({ type: 'write_checked', endpoint: 'preRedeem', found: true });
  });

  it('sends a pre-redeem again when the lookup shows it never arrived, and retries a 503 without lookup', async ({
    expect,
  }) => {
    let attempts = 0;
    const { upstream, client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path === '/pre-redeem') {
        attempts++;
        if (attempts === 1) return json(res, 503, {});
        if (attempts === 2) return json(res, 500, {}); // failed before booking
        return json(res, 200, {
          status: 'delivered',
          transaction: { transactionId: 5, key: 'K-1', partnerReference: 'PO-2', redirectLink: 'http://r' },
        });
      }
      if (hit.path.startsWith('/sales/partner-reference/')) return json(res, 200, []);
      json(res, 404, {});
    });
    const result = await client.preRedeem({ productId: 7, partnerReference: 'PO-2' });
    expect(result.transaction.transactionId).toBe(5);
    expect(upstream.hitsOn('/pre-redeem')).toHaveLength(3);
    expect(upstream.hits.filter((h) => h.path.startsWith('/sales/partner-reference/'))).toHaveLength(1);
    expect(client.stats).toMatchObject({ rateLimited: 1, retries: 1 });
  });

  it(
    'sends a reversal by transaction id once: a 500 is not retried ' +
      'but said unclear, for the caller to read the sale (issue 34)',
    async ({ expect }) => {
      const { upstream, client } = await setup((hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        if (hit.path === '/reversal') return json(res, 500, { message: 'gateway trouble' });
        json(res, 404, {});
      });
      const error = await failure(client.reverseByTransactionId(31));
      expect(error.unclear).toBe(true);
      expect(error.message).toMatch(/gave no clear answer \(server error\); it is not sent again/);
      expect(upstream.hitsOn('/reversal')).toHaveLength(1);
      expect(upstream.hitsOn('/reversal')[0]!.body).toEqual({ transactionId: 31 });
    },
  );
});

describe.concurrent('reversal by partner reference', () => {
  it('is sent once: a 500 with the sale still live is said unclear, never sent again (issue 34)', async ({
    expect,
  }) => {
    const { upstream, client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path.startsWith('/reversal/partner-reference/')) return json(res, 500, { message: 'boom' });
      if (hit.path === '/sales/partner-reference/PO-5') return json(res, 200, [sale(5, 'PO-5', 'delivered')]);
      json(res, 404, {});
    });
    const error = await failure(client.reverseByPartnerReference('PO-5'));
    expect(error.unclear).toBe(true);
    expect(upstream.hitsOn('/reversal/partner-reference/PO-5')).toHaveLength(1);
  });

  it('is confirmed by a lookup after a timeout, not sent twice', async ({ expect }) => {
    let status = 'delivered';
    const { upstream, client, events } = await setup(
      (hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        if (hit.path.startsWith('/reversal/partner-reference/')) {
          status = 'Canceled in stock';
          return; // processed, but the answer never comes: the timeout fires (long enough for a loaded machine)
        }
        if (hit.path === '/sales/partner-reference/PO%2F9') return json(res, 200, [sale(77, 'PO/9', status)]);
        json(res, 404, {});
      },
      { timeoutMs: 1_500 },
    );
    const result = await client.reverseByPartnerReference('PO/9');
    expect(result).toMatchObject({ transactionId: 77, status: 'Canceled in stock' });
    expect(upstream.hitsOn('/reversal/partner-reference/PO%2F9')).toHaveLength(1);
    expect(events.map(describeClientEvent)).toContain(
      'reverseByPartnerReference: after an unclear failure, looked the write up: it went through, not sending it again',
    );
  });
});

describe.concurrent('lookups', () => {
  it('reads "not found" answers as empty', async ({ expect }) => {
    const { client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (hit.path.startsWith('/sales/transaction/')) return json(res, 400, { message: 'transaction not found' });
      if (hit.path.startsWith('/sales/document/')) return json(res, 404, {});
      return json(res, 200, []);
    });
    expect(await client.salesByTransactionId(404)).toBeUndefined();
    expect(await client.salesByDocument('123.456')).toEqual([]);
    expect(await client.salesByPartnerReference('none')).toEqual([]);
  });
});

describe.concurrent('downloadSalesByPeriod', () => {
  it('streams the body gzip-compressed to the file, retrying a body cut off mid-way', async ({ expect }) => {
    const records = Array.from({ length: 5_000 }, (_, i) => sale(i + 1, `PO-${i + 1}`));
    const body = JSON.stringify(records);
    let attempts = 0;
    const { client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      attempts++;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (attempts === 1) {
        res.write(body.slice(0, 100_000));
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      res.end(body);
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-download-'));
    const file = path.join(dir, 'landing', 'sales.json.gz');
    const result = await client.downloadSalesByPeriod('2024-03-01', '2024-03-31', false, file);
    expect(result).toMatchObject({ bytes: Buffer.byteLength(body), records: 5_000 });
    expect(result.fetchedAt).toBeInstanceOf(Date);
    expect(gunzipSync(readFileSync(file)).toString()).toBe(body);
    expect(readdirSync(path.dirname(file))).toEqual(['sales.json.gz']);
    expect(client.stats.retries).toBe(1);
  });

  it.for([
    ['as it is', false],
    ['gzip-encoded (asked for on every attempt)', true],
  ] as const)(
    'also writes the body uncompressed when asked, sent %s: the same bytes, private, no copy left by the cut attempt',
    async ([, encoded], { expect }) => {
      const body = JSON.stringify(Array.from({ length: 5_000 }, (_, i) => sale(i + 1, `PO-${i + 1}`)));
      const sent = encoded ? gzipSync(body) : Buffer.from(body);
      let attempts = 0;
      const { client, upstream } = await setup((hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        res.writeHead(200, { 'content-type': 'application/json', ...(encoded && { 'content-encoding': 'gzip' }) });
        if (++attempts === 1) {
          res.write(sent.subarray(0, sent.length >> 1));
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        }
        res.end(sent);
      });
      const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-download-'));
      const file = path.join(dir, 'sales.json.gz');
      const result = await client.downloadSalesByPeriod('2024-03-01', '2024-03-31', false, {
        filePath: file,
        uncompressedCopy: true,
      });
      const downloads = upstream.hits.filter((hit) => hit.path.startsWith('/sales/period/'));
      expect(downloads.map((hit) => hit.acceptEncoding)).toEqual(['gzip', 'gzip']);
      expect(client.stats.retries).toBe(1);
      expect(result).toMatchObject({ bytes: Buffer.byteLength(body), records: 5_000 });
      expect(result.uncompressedCopy).toBe(path.join(dir, `sales.json.tmp-${process.pid}`));
      expect(readFileSync(result.uncompressedCopy!, 'utf8')).toBe(body);
      expect(gunzipSync(readFileSync(file)).toString()).toBe(body);
      expect(statSync(result.uncompressedCopy!).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir).sort()).toEqual(['sales.json.gz', `sales.json.tmp-${process.pid}`]);
    },
  );

  it('reads an error answer that came gzip-encoded as the provider wrote it', async ({ expect }) => {
    const answer = JSON.stringify({ message: 'finishDate is before startDate', code: 'bad_period' });
    const { client } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      // The token check (another operation) passes: the refusal is the request's own.
      if (!hit.path.startsWith('/sales/period/')) return json(res, 200, []);
      res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(answer));
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-download-'));
    const error = await failure(
      client.downloadSalesByPeriod('2024-03-31', '2024-03-01', false, path.join(dir, 'sales.json.gz')),
    );
    // Errors name a body by its size and digest (--debug keeps it whole): those of the text, not of its gzip.
    expect(error.message).toContain(`answered 400: ${bodyDigest(answer)}`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a body in an encoding it did not ask for, landing nothing', async ({ expect }) => {
    const { client } = await setup(
      (hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' });
        res.end('[]');
      },
      { maxRetries: 1 },
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-download-'));
    const file = path.join(dir, 'sales.json.gz');
    const error = await failure(client.downloadSalesByPeriod('2024-03-01', '2024-03-31', true, file));
    expect(error.message).toMatch(/salesByPeriod.*encoded "br", which was not asked for/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('cuts a download trickling too few bytes an interval, naming the setting (issue 34)', async ({ expect }) => {
    const trickles: NodeJS.Timeout[] = [];
    const { client } = await setup(
      (hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
        // A byte every 50 ms for ever: never idle for timeoutMs, so a per-chunk idle timeout never fired.
        trickles.push(setInterval(() => res.write(' '), 50));
      },
      { maxRetries: 0, timeoutMs: 600, minDownloadBytesPerSecond: 1024 },
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-download-'));
    const file = path.join(dir, 'sales.json.gz');
    try {
      const error = await failure(client.downloadSalesByPeriod('2024-03-01', '2024-03-31', true, file));
      expect(error.message).toMatch(/salesByPeriod.* was cut 1 times: only \d+ byte\(s\) in 600 ms/);
      expect(error.message).toMatch(/api\.minDownloadBytesPerSecond 1024/);
      expect(error.hint).toMatch(/api\.downloadTimeoutMs/);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      for (const trickle of trickles) clearInterval(trickle);
    }
  });

  it('bounds a whole download by api.downloadTimeoutMs however steadily it arrives (issue 34)', async ({ expect }) => {
    const streams: NodeJS.Timeout[] = [];
    const { client } = await setup(
      (hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
        // Plenty for the per-interval minimum, and endless.
        streams.push(setInterval(() => res.write(' '.repeat(64 * 1024)), 20));
      },
      { maxRetries: 0, timeoutMs: 60_000, minDownloadBytesPerSecond: 1, downloadTimeoutMs: 700 },
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-download-'));
    try {
      const error = await failure(
        client.downloadSalesByPeriod('2024-03-01', '2024-03-31', true, path.join(dir, 'sales.json.gz')),
      );
      expect(error.message).toMatch(/was cut 1 times: no complete download within 700 ms/);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      for (const stream of streams) clearInterval(stream);
    }
  });

  it('never lands a body that ends before its JSON array does, nor an uncompressed copy of it', async ({ expect }) => {
    const { client } = await setup(
      (hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
        res.end('[{"transactionId":1},{"transactionId":2}');
      },
      { maxRetries: 1 },
    );
    for (const uncompressedCopy of [false, true]) {
      const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-download-'));
      const file = path.join(dir, 'sales.json.gz');
      const target = { filePath: file, uncompressedCopy };
      const error = await failure(client.downloadSalesByPeriod('2024-03-01', '2024-03-31', true, target));
      expect(error.message).toMatch(/salesByPeriod.*before its JSON array was complete/);
      expect(existsSync(file)).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    }
  });
});
