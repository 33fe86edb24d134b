/**
 * The provider through a corporate proxy (issue 31): HTTPS_PROXY for an https:// baseUrl, HTTP_PROXY for http://,
 * ALL_PROXY as a fallback and NO_PROXY (host, .domain, host:port, *) bypassing them — proxy-from-env's rules, the
 * ones curl and npm follow. The connection is a CONNECT tunnel (https-proxy-agent), so the proxy sees the host and
 * port only, never a token, a credential or a PIN; TLS to the provider is end to end.
 */
import type { Agent } from 'node:http';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { getProxyForUrl } from 'proxy-from-env';

/** The agent that tunnels requests to `target` through the environment's proxy, or undefined when none applies. */
export function proxyAgentFor(target: URL): Agent | undefined {
  const proxy = getProxyForUrl(target.href);
  if (!proxy) return undefined;
  return new HttpsProxyAgent(proxy, { keepAlive: true, maxSockets: 256 });
}
