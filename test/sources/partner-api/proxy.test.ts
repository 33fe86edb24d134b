/**
 * The provider through a proxy (issue 31): `pinrecon catalog` run with HTTP_PROXY sends every request to the
 * simulator through a small CONNECT proxy on loopback (written here, counting tunnels); NO_PROXY naming the host
 * bypasses it. The command runs in-process with the variables (runCommand sets them for its run and puts them back,
 * issue 27: the client reads them where a spawned CLI would); real HTTP end to end, every server started here
 * stopped.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../../doubles/simulator/server.js';
import { runCommand } from '../../support/cli-in-process.js';

const identifier = 'proxy-partner';
const secret = 'proxy-secret-123';
const unset = { HTTPS_PROXY: undefined, https_proxy: undefined, http_proxy: undefined, ALL_PROXY: undefined };
let simulator: RunningSimulator;
let proxy: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  simulator = await startSimulator({
    seed: 3,
    identifier,
    secret,
    dataset: { from: '2024-01-01', to: '2024-01-02', salesCount: 10 },
    // The catalog's ~60 requests paced at 1000/s, not 45/s (issue 27): what is proven is where they go, not pacing.
    rateLimitPerSecond: 1000,
  });
  proxy = await startProxy();
});
afterAll(async () => {
  await proxy.close();
  await simulator.close();
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

/**
 * The simulator speaks plain http on loopback, which goes through a proxy only where api.allowInsecureHttp lifts
 * the loopback rule (`insecure`, the default here); an https provider would go through one by itself.
 */
function configFile(insecure: boolean): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-proxy-'));
  const file = path.join(dir, 'pinrecon.config.json');
  // The catalog is ~60 requests: paced at 1000/s (the simulator's limit here), not the default 25 (issue 27).
  const api = { baseUrl: simulator.url, maxRequestsPerSecond: 1000, ...(insecure && { allowInsecureHttp: true }) };
  writeFileSync(file, JSON.stringify({ database: path.join(dir, 'pinrecon.duckdb'), api }));
  return file;
}

/** `pinrecon catalog` against the simulator with these proxy variables; its exit code. */
async function catalog(env: Record<string, string | undefined>, insecure = true) {
  const file = configFile(insecure);
  const variables = { ...unset, PINRECON_API_IDENTIFIER: identifier, PINRECON_API_SECRET: secret, ...env };
  const result = await runCommand(['catalog', '--json', '--config', file], { env: variables });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

describe('the provider through a proxy', () => {
  it('tunnels every request through HTTP_PROXY (CONNECT to the provider host)', async () => {
    const before = proxy.targets.length;
    await catalog({ HTTP_PROXY: proxy.url, NO_PROXY: undefined, no_proxy: undefined });
    const tunnels = proxy.targets.slice(before);
    expect(tunnels.length).toBeGreaterThan(0);
    expect(new Set(tunnels)).toEqual(new Set([new URL(simulator.url).host]));
  });

  it('refuses a proxy it cannot speak to (SOCKS): exit 2, naming the variables, never its credentials', async () => {
    const file = configFile(true);
    const env = { ...unset, PINRECON_API_IDENTIFIER: identifier, PINRECON_API_SECRET: secret, NO_PROXY: undefined };
    const result = await runCommand(['catalog', '--config', file], {
      env: { ...env, no_proxy: undefined, HTTP_PROXY: 'socks5://user:hunter2@127.0.0.1:1080' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /is socks5:\/\/127\.0\.0\.1:1080: pinrecon speaks to an http:\/\/ or https:\/\/ proxy/,
    );
    expect(result.stderr).not.toContain('hunter2');
  });

  it('keeps plain http off a proxy unless api.allowInsecureHttp: it would cross the network in clear', async () => {
    const before = proxy.targets.length;
    await catalog({ HTTP_PROXY: proxy.url, NO_PROXY: undefined, no_proxy: undefined }, false);
    expect(proxy.targets.length).toBe(before);
  });

  it('goes direct when NO_PROXY names the host, or when no proxy is set', async () => {
    const before = proxy.targets.length;
    await catalog({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1', no_proxy: undefined });
    await catalog({ HTTP_PROXY: undefined, NO_PROXY: undefined, no_proxy: undefined });
    expect(proxy.targets.length).toBe(before);
  });
});
