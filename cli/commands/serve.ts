/**
 * `pinrecon serve`: the review page (issue 32; README "For finance") — a local page to review a period, decide
 * findings, confirm suggested matches and approve actions, acting as the identity it was started with under the
 * same rules as the commands. Loopback only; prints its address with a one-time token as the first line of stdout;
 * runs until SIGINT or SIGTERM.
 */
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { identifyActor, resolveActor } from '../../pipelines/people/actor.js';
import { isLoopbackHost, startReviewServer } from '../../pipelines/review/server.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';
import { parseWholeNumber, periodOption, type ParseContext, type TypedActor, typedActor } from '../options.js';

export interface ServeOptions extends GlobalOptions {
  port: string;
  host: string;
  identity?: string;
  by?: string;
  period?: string;
}

export interface ServeRequest {
  host: string;
  port: number;
  actor: TypedActor;
  period?: string;
}

/** The command line of `serve`, checked (issue 27: pure, tested in-process). */
export function parseServe(options: ServeOptions, at: ParseContext): ServeRequest {
  if (!isLoopbackHost(options.host))
    throw new UsageError(
      `--host ${options.host} is not a loopback address: the review page acts as a person and listens on ` +
        '127.0.0.1 (or localhost, ::1) only. Reach it from elsewhere through an SSH tunnel.',
    );
  const port = parseWholeNumber(options.port, '--port', 65_535);
  const period = options.period === undefined ? undefined : periodOption(options.period, at);
  return { host: options.host, port, actor: typedActor(options), period };
}

export function registerServe(program: Command): void {
  withGlobalOptions(
    program
      .command('serve')
      .description('serve the review page on 127.0.0.1: overview, findings, decisions, suggested matches, approvals')
      .option('--port <n>', 'port to listen on (0 = any free port)', '8765')
      .option('--host <host>', 'loopback address to listen on (127.0.0.1, localhost or ::1; nothing else)', '127.0.0.1')
      .option(
        '--identity <file>',
        'private key of the person the page acts as (env PINRECON_IDENTITY), when people are configured',
      )
      .option('--by <name>', 'who acts, without people configured (default: the OS user name)')
      .option('--period <YYYY-MM>', 'the period shown first (default: the latest reconciled)'),
  )
    .addHelpText(
      'after',
      `
The first line of stdout is the address to open, with a one-time token: http://127.0.0.1:PORT/?token=…
Every page has a .json twin (/overview.json, /findings.json?…, /findings/ID.json, /matches.json, /actions.json).
Decisions, matches and approvals go through the same rules and recording as findings decide, matches confirm|reject
and actions approve. The page opens the database per request and never holds it while idle. Ctrl-C stops it.`,
    )
    .action(
      action<ServeOptions, []>(async ({ config, output }, options) => {
        const { host, port, actor: actorOptions, period } = parseServe(options, { timeZone: config.timezone });
        // The name shown on the page, by the same resolver every act uses: an unreadable or unregistered key, or a
        // --by naming another person, stops serve at once (exit 2); each act then asks its own role.
        const actorName = identifyActor(config, actorOptions, 'serve the review page').name;
        const server = await startReviewServer({
          config,
          host,
          port,
          actorName,
          actorFor: (role, act) => resolveActor(config, actorOptions, role, act),
          period,
        });
        output.document({ url: server.url, actor: actorName });
        output.result(server.url);
        output.info(`review page acting as ${actorName}; Ctrl-C stops it`);
        const signal = await new Promise<NodeJS.Signals>((resolve) => {
          process.once('SIGINT', () => resolve('SIGINT'));
          process.once('SIGTERM', () => resolve('SIGTERM'));
        });
        await server.close();
        output.info(`review page stopped (${signal})`);
      }),
    );
}
