/** Types of proxy-from-env (the package ships none): the proxy URL for a target URL, '' when none applies. */
declare module 'proxy-from-env' {
  export function getProxyForUrl(url: string | URL): string;
}
