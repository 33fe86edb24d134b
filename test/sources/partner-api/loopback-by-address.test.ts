/**
 * Issue 18 item 7: plain http:// is allowed to a loopback host only, and loopback is judged by the addresses
 * the host resolves to (dns.lookup, all of them), not by its name: `probe.localhost` claims loopback by its
 * name but resolves to nothing here, so the client refuses it before sending anything (a ConfigError naming
 * api.baseUrl), while `localhost` (127.0.0.1) is used. A scripted upstream on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.js';
import { isLoopbackAddress, resolveLoopback } from '../../../config/transport-security.js';
import { transportWarnings } from '../../../config/load.js';
import { configSchema } from '../../../config/schema.js';
import { PartnerApiClient } from '../../../sources/partner-api/client.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';
import { apiConfig, authorized, closeScripted, json, running, Upstream } from '../../support/scripted-upstream.js';

afterEach(closeScripted);

async function upstreamAt(): Promise<Upstream> {
  const upstream = await new Upstream((hit, res, up) => {
    if (authorized(hit, res, up)) json(res, 200, []);
  }).start();
  running.push(upstream);
  return upstream;
}

function clientFor(baseUrl: string): PartnerApiClient {
  const client = new PartnerApiClient(apiConfig(baseUrl, { maxRetries: 0 }), { limiter: new RateLimiter(1000) });
  running.push(client);
  return client;
}

describe('loopback by resolved address', () => {
  it(
    'refuses http:// to a *.localhost name that does not ' + 'resolve to loopback, before any request, naming the key',
    async () => {
      const upstream = await upstreamAt();
      const port = new URL(upstream.url).port;
      const error = await clientFor(`http://probe.localhost:${port}`)
        .catalogTree()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).key).toBe('api.baseUrl');
      expect((error as Error).message).toMatch(
        new RegExp(
          /^api\.baseUrl: the host probe\.localhost is taken for loopback only if every address /.source +
            /it resolves to is, but it does not resolve\..*api\.allowInsecureHttp/.source,
        ),
      );
      expect(upstream.hits).toEqual([]);
    },
  );

  it('uses http:// to localhost, which resolves to 127.0.0.1', async () => {
    const upstream = await upstreamAt();
    expect(await clientFor(`http://localhost:${new URL(upstream.url).port}`).catalogTree()).toEqual([]);
    expect(upstream.hitsOn('/auth/token')).toHaveLength(1);
  });

  it(
    'judges addresses: 127.0.0.0/8 and ::1 are loopback; ' + 'a name is loopback only when all it resolves to is',
    async () => {
      for (const address of ['127.0.0.1', '127.9.8.7', '::1', '[::1]', '::ffff:127.0.0.2'])
        expect(isLoopbackAddress(address), address).toBe(true);
      for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '128.0.0.1', 'localhost', 'foo.localhost'])
        expect(isLoopbackAddress(address), address).toBe(false);
      expect(await resolveLoopback('localhost')).toMatchObject({ loopback: true });
      expect(await resolveLoopback('probe.localhost')).toEqual({ loopback: false, addresses: [] });
      expect(await resolveLoopback('10.1.2.3')).toEqual({ loopback: false, addresses: ['10.1.2.3'] });
    },
  );

  it('warns about an opt-out of TLS to any name (loading cannot resolve it), not to a loopback address', () => {
    const warnings = (baseUrl: string, smtpUrl: string) =>
      transportWarnings(
        configSchema.parse({ api: { baseUrl, allowInsecureHttp: true }, email: { smtpUrl, allowPlaintextAuth: true } }),
      );
    expect(warnings('http://foo.localhost:8787', 'smtp://u:p@foo.localhost:25')).toEqual([
      expect.stringMatching(/api\.allowInsecureHttp is set: .*unencrypted to foo\.localhost:8787/),
      expect.stringMatching(/email\.allowPlaintextAuth is set: .*foo\.localhost/),
    ]);
    expect(warnings('http://127.0.0.1:8787', 'smtp://u:p@[::1]:25')).toEqual([]);
  });
});
