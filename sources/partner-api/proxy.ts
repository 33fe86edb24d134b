/**
 * The provider through a corporate proxy (issue 31): HTTPS_PROXY for an https:// baseUrl, HTTP_PROXY for http://,
 * ALL_PROXY as a fallback and NO_PROXY (host, .domain, host:port, *) bypassing them — proxy-from-env's rules, the
 * ones curl and npm follow. The connection is a CONNECT tunnel (https-proxy-agent), so the proxy sees the host and
 * port only, never a token, a credential or a PIN; TLS to the provider is end to end. A plain-http baseUrl (loopback
 * only, plain-http-guard.ts) goes direct: through a proxy it would cross the network in clear, to the proxy's own
 * loopback; only `api.allowInsecureHttp`, which lifts the loopback rule, lets it through one.
 */
import type { Agent } from 'node:http';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { ConfigError } from '../../core/errors.js';
import { getProxyForUrl } from 'proxy-from-env';

/** The agent that tunnels requests to `target` through the environment's proxy, or undefined when none applies. */
export function proxyAgentFor(target: URL, allowInsecureHttp = false): Agent | undefined {
  if (target.protocol !== 'https:' && !allowInsecureHttp) return undefined;
  const proxy = getProxyForUrl(target.href);
  if (!proxy) return undefined;
  const url = URL.canParse(proxy) ? new URL(proxy) : undefined;
  if (!url || !['http:', 'https:'].includes(url.protocol)) {
    // A SOCKS or mistyped proxy would otherwise fail every request with an unrelated socket error.
    const shown = url ? `${url.protocol}//${url.host}` : 'a value that is not a URL';
    throw new ConfigError(
      `The proxy for ${target.origin} (HTTPS_PROXY, HTTP_PROXY or ALL_PROXY) is ${shown}: pinrecon speaks to an ` +
        'http:// or https:// proxy (CONNECT). Set one such as http://proxy.example:3128, or add the host to NO_PROXY.',
    );
  }
  return new HttpsProxyAgent(url, { keepAlive: true, maxSockets: 256 });
}
