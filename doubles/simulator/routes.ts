/**
 * Turns endpoint templates ("METHOD /path/{param}", the keys and defaults of `defaultEndpoints` in
 * config/schema.ts) into a router, so the simulator serves whatever paths the configuration names.
 * A template may also carry parameters in its query string ("GET /sales?from={startDate}").
 */
import { defaultEndpoints, endpointNames, type EndpointName } from '../../config/schema.js';
import { endpointParameters } from '../../sources/partner-api/endpoints.js';

interface Route {
  name: EndpointName;
  method: string;
  /** Literal text, or the name of a parameter. */
  segments: ({ literal: string } | { parameter: string })[];
  /** Query-string key → parameter name. */
  queryParameters: [string, string][];
  literalCount: number;
}

export interface RouteMatch {
  name: EndpointName;
  params: Record<string, string>;
  query: URLSearchParams;
}

export class Router {
  private readonly routes: Route[];

  constructor(endpoints: Partial<Record<EndpointName, string>> = {}) {
    const routes = endpointNames.map((name) => compile(name, endpoints[name] ?? defaultEndpoints[name]));
    const seen = new Map<string, EndpointName>();
    for (const route of routes) {
      const shape = `${route.method} ${route.segments.map((s) => ('literal' in s ? s.literal : '{}')).join('/')}`;
      const other = seen.get(shape);
      if (other && route.queryParameters.length === 0) {
        throw new RangeError(
          `endpoints.${route.name} and endpoints.${other} have the same method and path ("${shape}")`,
        );
      }
      seen.set(shape, route.name);
    }
    // The most specific template wins: more literal segments first.
    this.routes = routes.sort(
      (a, b) => b.literalCount - a.literalCount || b.queryParameters.length - a.queryParameters.length,
    );
  }

  match(method: string, url: URL): RouteMatch | undefined {
    const parts = splitPath(url.pathname);
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let k = 0; k < parts.length && ok; k++) {
        const segment = route.segments[k]!;
        const part = parts[k]!;
        if ('literal' in segment) ok = segment.literal === part;
        else {
          try {
            params[segment.parameter] = decodeURIComponent(part);
          } catch {
            ok = false;
          }
        }
      }
      for (const [key, parameter] of route.queryParameters) {
        const value = url.searchParams.get(key);
        if (value === null) ok = false;
        else params[parameter] = value;
      }
      if (ok) return { name: route.name, params, query: url.searchParams };
    }
    return undefined;
  }
}

function compile(name: EndpointName, template: string): Route {
  const match = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)$/.exec(template);
  if (!match) throw new RangeError(`endpoints.${name}: "${template}" must look like "METHOD /path/{param}"`);
  const [pathPart, queryPart = ''] = match[2]!.split('?') as [string, string?];
  const segments = splitPath(pathPart).map((text) => {
    const parameter = /^\{(\w+)\}$/.exec(text)?.[1];
    return parameter ? { parameter } : { literal: text };
  });
  const queryParameters: [string, string][] = [];
  for (const pair of queryPart.split('&').filter(Boolean)) {
    const [key, value = ''] = pair.split('=');
    const parameter = /^\{(\w+)\}$/.exec(value)?.[1];
    if (key && parameter) queryParameters.push([key, parameter]);
  }
  const names = [
    ...segments.flatMap((s) => ('parameter' in s ? [s.parameter] : [])),
    ...queryParameters.map(([, p]) => p),
  ];
  const missing = endpointParameters[name].filter((p) => !names.includes(p));
  if (missing.length > 0) {
    throw new RangeError(`endpoints.${name}: "${template}" must contain ${missing.map((p) => `{${p}}`).join(' and ')}`);
  }
  return {
    name,
    method: match[1]!,
    segments,
    queryParameters,
    literalCount: segments.filter((s) => 'literal' in s).length,
  };
}

function splitPath(path: string): string[] {
  return path.split('/').filter((part) => part.length > 0);
}
