/**
 * The provider through a proxy (issue 31): with HTTP_PROXY set every request to the simulator goes through a
 * small CONNECT proxy on loopback (written here, counting tunnels); NO_PROXY naming the host bypasses it. Real
 * HTTP end to end; every server started here is stopped.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { startSimulator } from '../../../doubles/simulator/server.js';
import { PartnerApiClient } from '../../../sources/partner-api/client.js';
import { RateLimiter } from '../../../sources/partner-api/rate-limiter.js';

const proxyVariables = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'ALL_PROXY'];
const saved = Object.fromEntries(proxyVariables.map((name) => [name, process.env[name]]));
const open: { close(): unknown }[] = [];

// This machine's own proxy settings must not decide the outcome.
beforeEach(() => {
  for (const name of proxyVariables) delete process.env[name];
});

afterEach(async () => {
  for (const name of proxyVariables) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  for (const thing of open.splice(0).reverse()) await thing.close();
});

/** A CONNECT proxy on 127.0.0.1 that counts the tunnels it opened and the targets asked for. */
async function startProxy() {
  const targets: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_request, response) => response.writeHead(405).end());
  server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    targets.push(request.url ?? '');
    const [host, port] = (request.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    targets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function simulatorAndClient() {
  const identifier = 'proxy-partner';
  const secret = 'proxy-secret-123';
  const simulator = await startSimulator({
    seed: 3,
    identifier,
    secret,
    dataset: { from: '2024-01-01', to: '2024-01-31', salesCount: 50, timezone: 'UTC' },
  });
  open.push(simulator);
  const api = configSchema.parse({ api: { baseUrl: simulator.url, identifier, secret } }).api;
  const client = new PartnerApiClient(api, { limiter: new RateLimiter(500) });
  open.push(client);
  return { simulator, client };
}

describe('the provider through a proxy', () => {
  it('tunnels every request through HTTP_PROXY (CONNECT to the provider host)', async () => {
    const proxy = await startProxy();
    open.push(proxy);
    process.env.HTTP_PROXY = proxy.url;
    const { simulator, client } = await simulatorAndClient();
    const tree = await client.catalogTree();
    expect(tree.length).toBeGreaterThan(0);
    expect(proxy.targets.length).toBeGreaterThan(0);
    expect(new Set(proxy.targets)).toEqual(new Set([new URL(simulator.url).host]));
  });

  it('goes direct when NO_PROXY names the host', async () => {
    const proxy = await startProxy();
    open.push(proxy);
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = '127.0.0.1';
    const { client } = await simulatorAndClient();
    expect((await client.catalogTree()).length).toBeGreaterThan(0);
    expect(proxy.targets).toEqual([]);
  });

  it('goes direct when no proxy is set', async () => {
    const proxy = await startProxy();
    open.push(proxy);
    const { client } = await simulatorAndClient();
    expect((await client.catalogTree()).length).toBeGreaterThan(0);
    expect(proxy.targets).toEqual([]);
  });
});
