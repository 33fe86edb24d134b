/**
 * What the review page changes (issue 32), each through the very function its command uses, so the outcome in the
 * database is the same as `findings decide`, `matches confirm|reject` and `actions approve`: the same checks,
 * refusals, chain rows (their source `serve`, not `cli`), signatures and run trace. Each act opens the database for
 * writing only for its own length (waiting for a running job at most `lockWaitSeconds`), publishes the analysts'
 * snapshot after it, failed or not, and closes it.
 */
import type { Config } from '../../config/schema.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';
import { isCalendarDate } from '../../core/calendar.js';
import { isDecision, decisions } from '../../core/decisions.js';
import { JobError, UsageError } from '../../core/errors.js';
import { recordRun } from '../../core/run-trace.js';
import { publishSnapshot, Warehouse } from '../../core/warehouse.js';
import { approveActions, type ApproveSummary } from '../actions/approve.js';
import { decideFindings, describeDecisions } from '../decisions/findings.js';
import { decideMatches, describeMatchDecisions, type MatchVerb } from '../decisions/matches.js';
import type { DecisionsResult } from '../decisions/recording.js';
import { analystsAccess } from '../keys/private-files.js';
import type { Actor } from '../people/actor.js';
import type { PersonRole } from '../../config/schema.js';

/** Who acts for an act needing `role`: the identity the page was started with (may refuse, as the command would). */
export type ActorFor = (role: PersonRole, act: string) => Actor;

/** An act's outcome as the page shows it: what was recorded, and every refusal with its reason. */
export interface ActOutcome {
  ok: boolean;
  /** The command's own summary, line by line. */
  lines: string[];
  /** The error that refused the whole act (signed period, maker-checker, a running job), if any. */
  refusal?: string;
  hint?: string;
}

/** How long an act waits for a running job before it is refused (the page says so; the job is never blocked). */
const pageLockWaitSeconds = 5;

/** The source every act of the page records (decision rows, run arguments): the same act, said where it came from. */
const pageSource = 'serve';

async function withWriter<T>(config: Config, work: (warehouse: Warehouse) => Promise<T>): Promise<T> {
  const warehouse = await Warehouse.open(
    config.database,
    warehouseSettings(config, { lockWaitSeconds: Math.min(config.lockWaitSeconds, pageLockWaitSeconds) }),
  );
  const access = analystsAccess(config);
  try {
    const result = await work(warehouse);
    await publishSnapshot(warehouse, access);
    return result;
  } catch (error) {
    // As the commands do (issue 31): analysts see a failed act's run too; the act's own error is what is told.
    await publishSnapshot(warehouse, access).catch(() => undefined);
    throw error;
  } finally {
    warehouse.close();
  }
}

/** Runs an act, turning the commands' refusals (JobError, UsageError) into an outcome the page shows. */
async function outcome(run: () => Promise<string[]>, failed?: (lines: string[]) => boolean): Promise<ActOutcome> {
  try {
    const lines = await run();
    return { ok: !(failed?.(lines) ?? false), lines };
  } catch (error) {
    if (error instanceof JobError || error instanceof UsageError)
      return { ok: false, lines: [], refusal: error.message, hint: error instanceof JobError ? error.hint : undefined };
    throw error;
  }
}

export interface DecideForm {
  decision: string;
  note?: string;
  owner?: string;
  expectedClearBy?: string;
}

function checkForm(form: DecideForm): void {
  if (!isDecision(form.decision))
    throw new UsageError(`The decision must be one of ${decisions.join(', ')}, got "${form.decision}".`);
  if (form.expectedClearBy !== undefined && !isCalendarDate(form.expectedClearBy))
    throw new UsageError(`Expected clear by must be a date written YYYY-MM-DD, got "${form.expectedClearBy}".`);
}

function summary(result: DecisionsResult): string[] {
  return describeDecisions(result).split('\n');
}

/** Decides the findings named, as `findings decide ID…` does. */
export async function decideNamed(
  config: Config,
  actorFor: ActorFor,
  findingIds: string[] | ((warehouse: Warehouse) => Promise<string[]>),
  form: DecideForm,
): Promise<ActOutcome> {
  let refused = 0;
  return outcome(
    async () => {
      checkForm(form);
      const actor = actorFor('preparer', 'decide findings');
      // Ids chosen by filters are chosen in the file written, in the act's own open of it.
      const result = await withWriter(config, async (w) =>
        decideFindings(w, typeof findingIds === 'function' ? await findingIds(w) : findingIds, {
          ...form,
          actor,
          timezone: config.timezone,
          source: pageSource,
        }),
      );
      refused = result.refused.length;
      return summary(result);
    },
    () => refused > 0,
  );
}

/** Confirms or rejects suggested matches, as `matches confirm|reject` does. */
export async function decideSuggestions(
  config: Config,
  actorFor: ActorFor,
  suggestionIds: string[],
  verb: MatchVerb,
  note: string | undefined,
): Promise<ActOutcome> {
  return outcome(async () => {
    if (suggestionIds.length === 0) throw new UsageError('Choose at least one suggested match.');
    if (verb === 'reject' && !note?.trim())
      throw new UsageError('Rejecting a suggested match needs a note: say why the two are not the same purchase.');
    const actor = actorFor('preparer', `${verb} suggested matches`);
    const requests = suggestionIds.map((suggestionId) => ({ suggestionId, verb, note: note ?? null }));
    // The command's act and recording (issue 32), its source saying it came from the page.
    const command = `matches ${verb}`;
    const context = { by: actor.name, signer: actor.signer, source: pageSource, timezone: config.timezone, command };
    const args = { ids: suggestionIds, by: actor.name, attested: actor.attested, source: pageSource };
    const result = await withWriter(config, (w) =>
      recordRun(w, command, args, async (run) => {
        const decided = await decideMatches(w, requests, context);
        run.counters.rowsLoaded = decided.recorded.length;
        return decided;
      }),
    );
    return describeMatchDecisions(result).split('\n');
  });
}

/** Approves actions as `actions approve` does: maker-checker against the page's identity, all or nothing. */
export async function approve(
  config: Config,
  actorFor: ActorFor,
  period: string,
  actionIds: string[],
): Promise<ActOutcome> {
  return outcome(async () => {
    if (actionIds.length === 0) throw new UsageError('Choose at least one action to approve.');
    const actor = actorFor('approver', 'approve actions');
    const result: ApproveSummary = await withWriter(config, (w) =>
      approveActions(w, config, { period, actionIds, actor }),
    );
    return [
      `approved ${result.approved.length} action(s) of ${result.period} as ${result.approvedBy} ` +
        `(approval policy sha256 ${result.policySha256})`,
      ...result.approved.map((a) => `  ${a.actionId} ${a.kind} ${a.amount ?? ''} ${a.currency ?? ''}`),
    ];
  });
}
