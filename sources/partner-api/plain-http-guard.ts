/**
 * Plain http is allowed to loopback only (issue 18): before the first request the baseUrl's host must resolve to
 * loopback addresses only, and every connection's own lookup must give loopback addresses, so a name checked once
 * cannot resolve elsewhere later. `api.allowInsecureHttp` lifts both checks.
 */
import dns, { type LookupOptions } from 'node:dns';
import http from 'node:http';
import type { ApiConfig } from '../../config/schema.js';
import { confirmLoopback, isLoopbackAddress } from '../../config/transport-security.js';

/** net.connect's `lookup` callback: one address, or all of them when asked with `all`. */
type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address?: string | dns.LookupAddress[],
  family?: number,
) => void;

export class PlainHttpGuard {
  /** The keep-alive agent of every plain-http connection, resolving names through the loopback check. */
  readonly agent = new http.Agent({
    keepAlive: true,
    maxSockets: 256,
    lookup: (host: string, options: LookupOptions, callback: LookupCallback) =>
      this.loopbackLookup(host, options, callback),
  } as http.AgentOptions);
  /** The check of a plain-http baseUrl's host by its addresses, made before the first request. */
  private checked: Promise<unknown> | undefined;

  constructor(private readonly api: ApiConfig) {}

  /** Before the first plain-http request: the baseUrl's host must resolve to loopback only (else a ConfigError). */
  confirm(url: URL): Promise<unknown> {
    if (url.protocol !== 'http:' || this.api.allowInsecureHttp) return Promise.resolve();
    this.checked ??= confirmLoopback(url.hostname, 'api.baseUrl', 'api.allowInsecureHttp');
    return this.checked;
  }

  /**
   * dns.lookup for plain-http connections: unless api.allowInsecureHttp, an answer holding an address that
   * is not loopback fails the connection (the config allowed http:// because the host claimed loopback).
   */
  private loopbackLookup(host: string, options: LookupOptions, callback: LookupCallback): void {
    dns.lookup(host, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      if (!this.api.allowInsecureHttp && !addresses.every((entry) => isLoopbackAddress(entry.address))) {
        const found = addresses.map((a) => a.address).join(', ');
        return callback(
          Object.assign(new Error(`${host} resolves to ${found}, not loopback`), { code: 'ENOTLOOPBACK' }),
        );
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${host} does not resolve`), { code: 'ENOTFOUND' }));
      callback(null, first.address, first.family);
    });
  }
}
