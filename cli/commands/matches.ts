/**
 * `pinrecon matches list|confirm|reject`: suggested matches of near-miss references (README "Suggested
 * matches (near-miss references)", issue 29). A confirmation or rejection is a row of the period's decision chain;
 * the next reconcile matches a confirmed pair.
 */
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { Warehouse } from '../../core/warehouse.js';
import { unattestedNotice } from '../../core/signatures.js';
import { resolveActor } from '../../pipelines/people/actor.js';
import {
  decideMatches,
  describeMatchDecisions,
  listMatches,
  matchStatuses,
  type MatchStatus,
  type MatchVerb,
} from '../../pipelines/decisions/matches.js';
import { recordRun } from '../../core/run-trace.js';
import { action, withGlobalOptions, withJobWarehouse, type GlobalOptions } from '../context.js';
import {
  type ListFormat,
  listFormats,
  parseChoice,
  parseListFormat,
  periodOption,
  type ParseContext,
  type TypedActor,
  typedActor,
} from '../options.js';
import { printRows } from '../print.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';

export interface ListOptions extends GlobalOptions {
  period: string;
  status?: string;
  format: string;
}

export interface DecideOptions extends GlobalOptions {
  note?: string;
  by?: string;
  identity?: string;
}

/** The command line of `matches list`, checked (issue 27: pure, tested in-process). */
export function parseMatchesList(
  options: ListOptions,
  at: ParseContext,
): { period: string; status?: MatchStatus; format: ListFormat } {
  const period = periodOption(options.period, at);
  const format = parseListFormat(options);
  const status = options.status === undefined ? undefined : parseChoice(options.status, matchStatuses, '--status');
  return { period, status, format };
}

export interface MatchesDecideRequest {
  verb: MatchVerb;
  suggestionIds: string[];
  note: string | null;
  actor: TypedActor;
}

/** The command line of `matches confirm|reject`, checked (issue 27: pure, tested in-process). */
export function parseMatchesDecide(verb: MatchVerb, options: DecideOptions, ids: string[]): MatchesDecideRequest {
  if (verb === 'reject' && !options.note?.trim())
    throw new UsageError('matches reject needs --note: say why the two are not the same purchase.');
  return {
    verb,
    suggestionIds: ids,
    note: options.note ?? null,
    actor: typedActor(options),
  };
}

export function registerMatches(program: Command): void {
  const matches = program
    .command('matches')
    .description('suggested matches of near-miss references: list them, confirm or reject them');

  withGlobalOptions(
    matches
      .command('list')
      .description("the period's suggested matches, best score first, with their status and reasons")
      .requiredOption('--period <YYYY-MM>', 'the month')
      .option('--status <status>', `only ${matchStatuses.join(' | ')}`)
      .option('--format <format>', `output: ${listFormats.join(', ')} (--json means json)`, 'table'),
  ).action(
    action<ListOptions, []>(async ({ config }, options) => {
      const { period, status, format } = parseMatchesList(options, { timeZone: config.timezone });
      const warehouse = await Warehouse.open(config.database, warehouseSettings(config));
      let rows;
      try {
        rows = await listMatches(warehouse, { period, status });
      } finally {
        warehouse.close();
      }
      await printRows(rows, format, '(no suggested matches)');
    }),
  );

  for (const verb of ['confirm', 'reject'] as const) {
    const command = withGlobalOptions(
      matches
        .command(`${verb} <suggestionId...>`)
        .description(
          verb === 'confirm'
            ? 'confirm suggested matches: from the next reconcile each pair is matched (a reference_mismatch finding)'
            : 'reject suggested matches: the pair is never proposed again',
        )
        .option('--note <text>', verb === 'confirm' ? 'why' : 'why (required)')
        .option('--by <name>', "who decided (default: the OS user name; with people configured, the key's person)")
        .option(
          '--identity <file>',
          'private key of the person deciding (env PINRECON_IDENTITY): required, and the act signed, ' +
            'when the config names people',
        ),
    ).addHelpText(
      'after',
      `
Exit 1, changing nothing, for an unknown suggestion, a signed-off period, or (confirm) a ledger order or sale
already in another confirmed match. Each decision is a row of the period's decision chain (pinrecon verify).

Example:
  pinrecon matches ${verb} 3f2a… ${verb === 'reject' ? '--note "another customer\'s order" ' : ''}--by "Ana Lima"`,
    );
    command.action(
      action<DecideOptions, [string[]]>(async ({ config, output }, options, ids) => {
        const { actor: who, note } = parseMatchesDecide(verb, options, ids);
        // The same actor as findings decide: a preparer's key with people configured, else a typed name (issue 28).
        const actor = resolveActor(config, who, 'preparer', `${verb} suggested matches`);
        const by = actor.name;
        const requests = ids.map((suggestionId) => ({ suggestionId, verb: verb as MatchVerb, note }));
        const result = await withJobWarehouse(config, (warehouse) =>
          recordRun(warehouse, `matches ${verb}`, { ids, by, attested: actor.attested }, async (run) => {
            const context = {
              by,
              signer: actor.signer,
              source: 'cli',
              timezone: config.timezone,
              command: `matches ${verb}`,
            };
            const decided = await decideMatches(warehouse, requests, context);
            run.counters.rowsLoaded = decided.recorded.length;
            return decided;
          }),
        );
        if (!actor.attested) output.info(unattestedNotice);
        output.result(describeMatchDecisions(result));
        output.document({ ok: true, ...result });
      }),
    );
  }
}
