/**
 * `pinrecon simulate-api`: serves the local simulator of the provider API (doubles/simulator) at the paths
 * of the configuration's `api.endpoints`, until SIGINT/SIGTERM. Credentials come from --identifier/--secret,
 * else the environment/config (`PINRECON_API_IDENTIFIER`/`PINRECON_API_SECRET`), else the demo pair; they are
 * never printed.
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../../config/schema.js';
import { ConfigError, JobError, UsageError } from '../../core/errors.js';
import type { Output } from '../../core/output.js';
import type { RequestLogEntry, SimulatorOptions } from '../../doubles/simulator/server.js';
import { DEFAULT_SALES_PER_DAY, defaultDatasetOptions } from '../../doubles/simulator/sale-generator.js';
import { daysInclusive } from '../../core/calendar.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';
import {
  parseDateOption,
  parsePositiveNumber as positive,
  parseShare as rate,
  parseWholeNumber as count,
  type ParseContext,
} from '../options.js';

export interface SimulateApiOptions extends GlobalOptions {
  host: string;
  port?: string;
  seed: string;
  from?: string;
  to?: string;
  sales?: string;
  tokenLifetime: string;
  rateLimit: string;
  maxPeriodDays: string;
  fault503: string;
  fault500: string;
  faultDrop: string;
  slowRate: string;
  slowMs: string;
  revokeEvery: string;
  malformedEvery: string;
  keepResponses?: string;
  identifier?: string;
  secret?: string;
  verbose?: boolean;
}

export function registerSimulateApi(program: Command): void {
  withGlobalOptions(
    program
      .command('simulate-api')
      .description(
        'serve a local simulator of the provider API (seeded data set, rate limit, optional faults) until Ctrl-C',
      )
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--port <n>', 'port (default: the port of api.baseUrl, 8787 unless configured; 0 = any free port)')
      .option('--seed <n>', 'seed of the data set and of the fault sequence', '1')
      .option('--from <date>', 'first creation date of the data set, YYYY-MM-DD (default: first day of last month)')
      .option('--to <date>', 'last creation date, YYYY-MM-DD (default: today)')
      .option('--sales <n>', `number of sales in the data set (default: ${DEFAULT_SALES_PER_DAY} a day)`)
      .option('--token-lifetime <seconds>', 'access-token lifetime', '3600')
      .option('--rate-limit <n>', 'requests accepted in any rolling second (beyond: 503)', '50')
      .option('--max-period-days <n>', 'longest sales period, days inclusive', '31')
      .option('--fault-503 <rate>', 'share of requests answered 503 at random (0-1)', '0')
      .option('--fault-500 <rate>', 'share of requests answered 500 at random (0-1)', '0')
      .option('--fault-drop <rate>', 'share of connections dropped before or during the response (0-1)', '0')
      .option('--slow-rate <rate>', 'share of responses delayed by --slow-ms (0-1)', '0')
      .option('--slow-ms <ms>', 'delay of a slow response', '2000')
      .option('--revoke-every <seconds>', 'revoke every issued token this often (0 = never)', '0')
      .option('--malformed-every <n>', 'serve every Nth sale malformed (0 = none)', '0')
      .option(
        '--keep-responses <dir>',
        'keep each period answer in DIR (gzip) and answer the same window again from it (benchmarks)',
      )
      .option(
        '--identifier <id>',
        'accepted identifier (default: api.identifier / $PINRECON_API_IDENTIFIER, else "demo-partner")',
      )
      .option('--secret <secret>', 'accepted secret (default: api.secret / $PINRECON_API_SECRET, else "demo-secret")')
      .option('--verbose', 'log one line per request (method, path, status, time; never tokens)'),
  ).action(
    action<SimulateApiOptions, []>(({ config, output }, options) =>
      serveSimulator(config, parseSimulateApi(options, { timeZone: config.timezone }), output),
    ),
  );
}

export interface SimulateApiRequest {
  host: string;
  /** Undefined: the port of api.baseUrl. */
  port?: number;
  seed: number;
  from: string;
  to: string;
  salesCount: number;
  malformedEvery: number;
  tokenLifetimeSeconds: number;
  rateLimitPerSecond: number;
  maxPeriodDays: number;
  faults: NonNullable<SimulatorOptions['faults']>;
  keepResponses?: string;
  identifier?: string;
  secret?: string;
  verbose: boolean;
}

/**
 * The command line of `simulate-api`, checked (issue 27: pure, tested in-process); the data set's default dates are
 * last month's first day to today in the context's zone.
 */
export function parseSimulateApi(options: SimulateApiOptions, at: ParseContext): SimulateApiRequest {
  const defaults = defaultDatasetOptions(at.timeZone, at.now);
  const from = parseDateOption(options.from, '--from') ?? defaults.from;
  const to = parseDateOption(options.to, '--to') ?? defaults.to;
  if (daysInclusive(from, to) < 1) throw new UsageError(`--to (${to}) is before --from (${from}).`);
  const salesCount =
    options.sales === undefined ? daysInclusive(from, to) * DEFAULT_SALES_PER_DAY : count(options.sales, '--sales');
  return {
    host: options.host,
    ...(options.port !== undefined && { port: count(options.port, '--port', 65_535) }),
    seed: count(options.seed, '--seed'),
    from,
    to,
    salesCount,
    malformedEvery: count(options.malformedEvery, '--malformed-every'),
    tokenLifetimeSeconds: positive(options.tokenLifetime, '--token-lifetime'),
    rateLimitPerSecond: positive(options.rateLimit, '--rate-limit'),
    maxPeriodDays: positive(options.maxPeriodDays, '--max-period-days'),
    faults: {
      error503Rate: rate(options.fault503, '--fault-503'),
      error500Rate: rate(options.fault500, '--fault-500'),
      dropRate: rate(options.faultDrop, '--fault-drop'),
      slowRate: rate(options.slowRate, '--slow-rate'),
      slowMs: count(options.slowMs, '--slow-ms'),
      revokeEverySeconds: count(options.revokeEvery, '--revoke-every'),
    },
    ...(options.keepResponses !== undefined && { keepResponses: options.keepResponses }),
    ...(options.identifier !== undefined && { identifier: options.identifier }),
    ...(options.secret !== undefined && { secret: options.secret }),
    verbose: Boolean(options.verbose),
  };
}

/** The simulator's options from the request and the config (api.endpoints, credentials, time zone). */
function simulatorOptionsFrom(config: Config, request: SimulateApiRequest, output: Output): SimulatorOptions {
  return {
    host: request.host,
    port: request.port ?? portOf(config.api.baseUrl),
    seed: request.seed,
    identifier: request.identifier ?? config.api.identifier ?? 'demo-partner',
    secret: request.secret ?? config.api.secret ?? 'demo-secret',
    endpoints: config.api.endpoints,
    dataset: {
      from: request.from,
      to: request.to,
      salesCount: request.salesCount,
      timezone: config.timezone,
      malformedEvery: request.malformedEvery,
    },
    tokenLifetimeSeconds: request.tokenLifetimeSeconds,
    rateLimitPerSecond: request.rateLimitPerSecond,
    maxPeriodDays: request.maxPeriodDays,
    faults: request.faults,
    onRequest: request.verbose && !output.json ? (entry) => output.info(describeRequest(entry)) : undefined,
    ...(request.keepResponses !== undefined && { keepResponsesDir: path.resolve(request.keepResponses) }),
  };
}

/** Serves the simulator until SIGINT or SIGTERM, then says what it served. */
async function serveSimulator(config: Config, request: SimulateApiRequest, output: Output): Promise<void> {
  const simulatorOptions = simulatorOptionsFrom(config, request, output);
  const { from, to, salesCount, host } = request;
  const credentialSource =
    request.identifier || request.secret
      ? 'the command line'
      : config.api.identifier || config.api.secret
        ? 'the configuration/environment'
        : 'the built-in demo pair';

  // The simulator loads only when it is asked for (start-up of every other command).
  const { startSimulator } = await import('../../doubles/simulator/server.js');
  const simulator = await startSimulator(simulatorOptions).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new JobError(
        `Port ${simulatorOptions.port} on ${host} is already in use.`,
        'pass --port with a free port (or 0 for any).',
      );
    }
    if (error instanceof RangeError && /^endpoints\./.test(error.message)) {
      throw new ConfigError(`api.${error.message}`, undefined, `api.${error.message.split(':')[0]}`);
    }
    throw error;
  });

  const summary = {
    url: simulator.url,
    seed: simulatorOptions.seed,
    dataset: {
      from,
      to,
      salesCount,
      timezone: config.timezone,
      malformedEvery: simulatorOptions.dataset!.malformedEvery,
    },
    rateLimitPerSecond: simulatorOptions.rateLimitPerSecond,
    tokenLifetimeSeconds: simulatorOptions.tokenLifetimeSeconds,
    faults: simulatorOptions.faults,
    endpoints: config.api.endpoints,
    ...(simulatorOptions.keepResponsesDir && { keepResponsesDir: simulatorOptions.keepResponsesDir }),
  };
  output.document(summary);
  output.result(
    [
      `Simulator listening at ${simulator.url}`,
      `  data set: ${salesCount} sales created ${from}..${to} (${config.timezone}), seed ${summary.seed}`,
      `  credentials: ${credentialSource}; rate limit ${summary.rateLimitPerSecond}/s; tokens live ` +
        `${summary.tokenLifetimeSeconds}s`,
      'Press Ctrl-C to stop.',
    ].join('\n'),
  );

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  const stats = simulator.stats();
  await simulator.close();
  output.info(
    `Stopped (${signal}) after ${stats.requests} requests: ${stats.rateLimited} rate-limited, ` +
      `${stats.injected503 + stats.injected500} injected errors, ${stats.dropped} dropped; ` +
      `at most ${stats.maxInAnyRollingSecond} in any second.` +
      (simulatorOptions.keepResponsesDir
        ? ` Period answers: ${stats.keptRendered} rendered into and ${stats.keptReplayed} served from ` +
          `${simulatorOptions.keepResponsesDir}.`
        : ''),
  );
}

function describeRequest(entry: RequestLogEntry): string {
  const status = entry.status === 0 ? 'dropped' : String(entry.status);
  const endpoint = entry.endpoint ? ` [${entry.endpoint}]` : '';
  return `${entry.method} ${entry.path} → ${status} ${entry.ms}ms${endpoint}${entry.note ? ` ${entry.note}` : ''}`;
}

function portOf(baseUrl: string): number {
  const url = new URL(baseUrl);
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}
