/**
 * The HTTP transport (sources/partner-api/http.ts, retry-policy.ts) through the client: retries and back-off,
 * time-outs, redaction of echoed credentials, oversized answers.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PartnerApiClient } from '../../../sources/partner-api/client.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';
import { afterAll, describe, it } from 'vitest';
import {
  closeScripted,
  running,
  json,
  authorized,
  apiConfig,
  setup,
  failure,
} from '../../support/scripted-upstream.js';

// Each test starts its own upstream and client; the tests run concurrently (most of their time is waiting out
// back-offs and time-outs), so everything is closed once, at the end.
afterAll(closeScripted);

describe.concurrent('retries', () => {
  it.for([503, 429])('waits at least a second after a %i and counts it apart', async (status, { expect }) => {
    let calls = 0;
    const { client, events } = await setup((hit, res, up) => {
      if (!authorized(hit, res, up)) return;
      if (++calls === 1) return json(res, status, { message: 'slow down' });
      json(res, 200, []);
    });
    const started = Date.now();
    expect(await client.catalogTree()).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(client.stats).toMatchObject({ rateLimited: 1, retries: 0, requests: 3 });
    expect(events.find((e) => e.type === 'rate_limited')).toMatchObject({ endpoint: 'catalogTree' });
  });

  it('backs off after 500, a dropped connection, a stall and a truncated body, then succeeds', async ({ expect }) => {
    let calls = 0;
    const { client, events } = await setup(
      (hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        calls++;
        if (calls === 1) return json(res, 500, { message: 'boom' });
        if (calls === 2) return void res.socket?.destroy();
        // Never answers: the timeout fires. Long enough that no prompt answer on a loaded machine is taken for a stall.
        if (calls === 3) return;
        if (calls === 4) {
          res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
          return void res.end('[{"id":1,"na');
        }
        json(res, 200, [
          { id: 1, name: 'ok', collections: [], products: [], tags: [], termsAndConditions: '', howToRedeem: null },
        ]);
      },
      { timeoutMs: 1_500 },
    );
    expect(await client.catalogTree()).toHaveLength(1);
    expect(client.stats.retries).toBe(4);
    expect(events.filter((e) => e.type === 'retry').map((e) => (e as { reason: string }).reason)).toEqual([
      expect.stringMatching(/500/),
      expect.stringMatching(/dropped|closed/),
      expect.stringMatching(/no complete answer within 1500 ms/),
      expect.stringMatching(/not valid JSON/),
    ]);
  });

  it('gives up after api.maxRetries with an error naming the endpoint', async ({ expect }) => {
    const { upstream, client } = await setup(
      (hit, res, up) => {
        if (authorized(hit, res, up)) json(res, 502, { message: 'bad gateway' });
      },
      { maxRetries: 2 },
    );
    const error = await failure(client.salesByPeriod('2024-01-01', '2024-01-31', false));
    expect(error.message).toMatch(
      /salesByPeriod \(GET \/sales\/period\/\{startDate\}\/\{finishDate\}\).*failed after 2 retries.*502/,
    );
    expect(error.status).toBe(502);
    expect(upstream.hitsOn('/sales/period/2024-01-01/2024-01-31')).toHaveLength(3);
    expect(client.stats.retries).toBe(2);
  });

  it('bounds the whole answer by api.timeoutMs: a body trickling a byte at a time times out (issue 34)', async ({
    expect,
  }) => {
    const trickles: NodeJS.Timeout[] = [];
    const { client } = await setup(
      (hit, res, up) => {
        if (!authorized(hit, res, up)) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
        // A byte every 100 ms for ever: each is well inside the timeout, so only a deadline on the whole answer ends
        // it.
        trickles.push(setInterval(() => res.write(' '), 100));
      },
      { maxRetries: 0, timeoutMs: 600 },
    );
    try {
      const error = await failure(client.salesByTransactionId(1));
      expect(error.message).toMatch(/gave no answer within api\.timeoutMs \(600 ms\), 1 times/);
    } finally {
      for (const trickle of trickles) clearInterval(trickle);
    }
  });

  it('names the timeout and the setting to change', async ({ expect }) => {
    const { client } = await setup(() => undefined, { maxRetries: 1, timeoutMs: 150 });
    const error = await failure(client.productStock(1));
    expect(error.message).toMatch(
      /productStock \(GET .*\) at http:\/\/127\.0\.0\.1:\d+ gave no answer within api\.timeoutMs \(150 ms\), 2 times/,
    );
    expect(error.hint).toMatch(/api\.timeoutMs/);
  });
});

describe.concurrent('credentials in transit and oversized answers', () => {
  /** A loopback server answering every request with what it received; `answer` shapes the reply. */
  async function echoServer(
    answer: (received: string, res: ServerResponse) => void,
  ): Promise<{ url: string; close(): Promise<void> }> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => answer(Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const handle = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => {
        server.closeAllConnections();
        return new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
    running.push(handle);
    return handle;
  }

  it(
    'redacts the credentials also when the upstream ' + 'echoes them JSON-escaped, \\u-escaped or URL-encoded',
    async ({ expect }) => {
      const identifier = 'ident/"quoted"\\42';
      const secret = 'sé"cr\\et/ 42&x=y+z';
      const upstream = await echoServer((received, res) => {
        const asciiJson = JSON.stringify(received).replace(
          /[\u007f-\uffff]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
        );
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(
          [
            `raw ${received}`,
            `json ${JSON.stringify({ echo: received })}`,
            `ascii ${asciiJson}`,
            `slashes ${JSON.stringify(received).replaceAll('/', '\\/')}`,
            `uri ${encodeURIComponent(JSON.parse(received).secret)} ` +
              `${encodeURIComponent(JSON.parse(received).identifier)}`,
            `form ${new URLSearchParams(JSON.parse(received)).toString()}`,
          ].join('\n'),
        );
      });
      const client = new PartnerApiClient(apiConfig(upstream.url, { identifier, secret }), {
        limiter: new RateLimiter(1000),
      });
      running.push(client);
      const error = await failure(client.catalogTree());
      const shown = `${error.message} ${error.hint} ${error.body}`;
      // Issue 34: the body is said by its size and digest only, never quoted.
      expect(shown).toMatch(/a body of \d+ bytes, sha256 [0-9a-f]{16}/);
      expect(shown).not.toContain('raw {');
      for (const value of [identifier, secret]) {
        const escaped = JSON.stringify(value).slice(1, -1);
        for (const form of [
          value,
          escaped,
          JSON.stringify(escaped).slice(1, -1),
          escaped.replaceAll('/', '\\/'),
          encodeURIComponent(value),
          new URLSearchParams({ v: value }).toString().slice(2),
        ]) {
          expect(shown).not.toContain(form);
        }
      }
      expect(shown).not.toContain('cr\\\\');
      expect(shown).not.toContain('s\\u00e9');
      expect(shown).not.toContain('42%26x');
    },
  );

  it('refuses an endless token answer once it passes api.maxAnswerBytes, reading no more of it', async ({ expect }) => {
    let sent = 0;
    const upstream = await echoServer((_received, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      res.write('{"accessToken":"');
      const pump = () => {
        while (!res.destroyed && sent < 2_000_000_000) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => undefined);
      pump();
    });
    const client = new PartnerApiClient(apiConfig(upstream.url, { maxAnswerBytes: 1024 * 1024 }), {
      limiter: new RateLimiter(1000),
    });
    running.push(client);
    const error = await failure(client.catalogTree());
    expect(error.message).toMatch(/getToken.*answered more than api\.maxAnswerBytes \(1048576 bytes\)/);
    expect(error.hint).toMatch(/api\.baseUrl/);
    // The connection was closed soon after the cap: the server could not push much more than socket buffers hold.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});
