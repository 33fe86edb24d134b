/**
 * The review page's routes (issue 32): each GET opens the database read-only for the request and closes it (the
 * live file, or while a job holds it the last published snapshot, said on the page); each POST is one act of
 * acts.ts. `/x.json` answers the same data as `/x`.
 */
import { existsSync, statSync } from 'node:fs';
import type { Config } from '../../config/schema.js';
import { warehouseSettings } from '../../config/warehouse-settings.js';
import { decisions } from '../../core/decisions.js';
import { JobError, UsageError } from '../../core/errors.js';
import { findingFamilyNames, findingTypeNames } from '../../core/finding-types.js';
import { lockedByAnotherProcess, snapshotPath, Warehouse } from '../../core/warehouse.js';
import { findingStates } from '../../reports/finding-state.js';
import { findingListPage, findingPage } from '../../reports/page/findings.js';
import type { PageContext } from '../../reports/page/html.js';
import { messagePage, outcomePage, overviewPage } from '../../reports/page/overview.js';
import { actionsPage, matchesPage } from '../../reports/page/work.js';
import { approve, decideNamed, decideSuggestions, type ActOutcome, type ActorFor } from './acts.js';
import {
  actionsOfPeriod,
  filterChoices,
  filteredFindingIds,
  findingDetail,
  findingPage as readFindingPage,
  knownPeriods,
  matchesOf,
  overview,
  parseFindingQuery,
  type FindingQuery,
  readOnlyReason,
  sortable,
} from './reads.js';

export interface RouteOptions {
  config: Config;
  actorName: string;
  actorFor: ActorFor;
  period?: string;
  csrf: string;
}

export interface Answer {
  status: number;
  html?: string;
  json?: unknown;
  redirect?: string;
}

interface Reader {
  warehouse: Warehouse;
  jobRunning: boolean;
  source: string;
}

/** The live file read-only, or the snapshot while a job holds the live file (never waiting for the lock). */
async function openReader(config: Config): Promise<Reader> {
  if (!existsSync(config.database)) {
    throw new JobError(
      `There is no database at ${config.database} yet.`,
      'Run pinrecon run (or extract, ledger import and reconcile) first, or check "database" in the config.',
    );
  }
  try {
    const warehouse = await Warehouse.open(config.database, warehouseSettings(config, { readOnly: true }));
    return { warehouse, jobRunning: false, source: `${config.database} (live)` };
  } catch (error) {
    if (!lockedByAnotherProcess(error)) throw error;
    const snapshot = snapshotPath(config.database);
    if (!existsSync(snapshot))
      throw new JobError('A job is running on the database and no snapshot is published yet.', 'Reload when it ends.');
    const warehouse = await Warehouse.open(snapshot, warehouseSettings(config, { readOnly: true }));
    const published = statSync(snapshot).mtime.toISOString();
    return { warehouse, jobRunning: true, source: `snapshot ${snapshot}, published ${published}` };
  }
}

const periodPattern = /^\d{4}-(0[1-9]|1[0-2])$/;

export async function route(
  options: RouteOptions,
  method: 'GET' | 'POST',
  url: URL,
  form?: URLSearchParams,
): Promise<Answer> {
  const { config } = options;
  const asJson = url.pathname.endsWith('.json');
  const path = asJson ? url.pathname.slice(0, -'.json'.length) : url.pathname;
  if (path === '/' || path === '') return { status: 303, redirect: `/overview${url.search}` };
  let reader: Reader;
  try {
    reader = await openReader(config);
  } catch (error) {
    if (!(error instanceof JobError)) throw error;
    return failure(options, asJson, 503, 'Database not available', `${error.message} ${error.hint ?? ''}`);
  }
  let period: string | null = null;
  let context: PageContext;
  // "Every finding the filters choose": their query, and what the page's read saw of it (none: nothing to do).
  let chosen: { query: FindingQuery; seen: number } | undefined;
  try {
    const asked = url.searchParams.get('period') ?? form?.get('period') ?? options.period;
    if (asked !== undefined && asked !== null && !periodPattern.test(asked))
      return failure(options, asJson, 400, 'Bad period', `period must be a month written YYYY-MM, got "${asked}".`);
    period = asked ?? (await knownPeriods(reader.warehouse))[0] ?? null;
    const readOnly = period ? await readOnlyReason(reader.warehouse, period, config.timezone) : null;
    context = {
      period,
      csrf: options.csrf,
      actor: options.actorName,
      jobRunning: reader.jobRunning,
      source: reader.source,
      readOnly,
    };
    if (method === 'GET') {
      let answer: Answer | undefined;
      try {
        answer = await read(reader.warehouse, options, context, path, url, asJson);
      } catch (error) {
        // What the commands would refuse with (a period never reconciled, …): said on the page, with what to do.
        if (!(error instanceof JobError || error instanceof UsageError)) throw error;
        const hint = error instanceof JobError && error.hint ? ` ${error.hint}` : '';
        return failure(options, asJson, 409, 'Cannot show this page', `${error.message}${hint}`, context);
      }
      if (answer) return answer;
      return { status: 404, html: messagePage(context, 'Not found', `No page at ${path}.`) };
    }
    // "Every finding the filters choose": checked and counted here; the act selects them again in the file it writes,
    // so a finding decided meanwhile is judged by the filters as it stands then, not as the snapshot showed it.
    if (path === '/findings/decide' && form?.get('scope') === 'filtered' && period !== null) {
      const filters = new URL(safeBack(form.get('back') ?? undefined, period), 'http://page').searchParams;
      try {
        const query = parseFindingQuery(period, filters);
        chosen = { query, seen: (await filteredFindingIds(reader.warehouse, query)).length };
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        return failure(options, asJson, 400, 'Bad filter', error.message, context);
      }
    }
  } finally {
    // Closed before any act opens the file for writing, and before the next request.
    reader.warehouse.close();
  }
  return act(options, context, path, form!, chosen);
}

async function read(
  warehouse: Warehouse,
  options: RouteOptions,
  context: PageContext,
  path: string,
  url: URL,
  asJson: boolean,
): Promise<Answer | undefined> {
  const { config } = options;
  const answer = (json: unknown, html: () => string): Answer =>
    asJson
      ? { status: 200, json: { ...(json as object), readOnly: context.readOnly, jobRunning: context.jobRunning } }
      : { status: 200, html: html() };
  const period = context.period;
  if (period === null && path !== '/overview' && !path.startsWith('/findings/'))
    return { status: 404, html: messagePage(context, 'No period', 'No period has been reconciled yet.') };
  if (path === '/overview') {
    if (period === null)
      return { status: 404, html: messagePage(context, 'No period', 'No period has been reconciled yet.') };
    const view = await overview(warehouse, config, period);
    return answer(view, () => overviewPage(context, view));
  }
  if (path === '/findings') {
    let query;
    try {
      query = parseFindingQuery(period!, url.searchParams);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      return failure(options, asJson, 400, 'Bad filter', error.message, context);
    }
    const page = await readFindingPage(warehouse, query);
    const choices = {
      types: findingTypeNames,
      families: findingFamilyNames,
      states: findingStates,
      ...(await filterChoices(warehouse, period!)),
    };
    return answer(page, () => findingListPage(context, { ...page, choices, decisions, sortable }));
  }
  const one = /^\/findings\/([0-9a-f]{6,64})$/.exec(path);
  if (one) {
    const detail = await findingDetail(warehouse, config, one[1]!);
    if (!detail)
      return failure(options, asJson, 404, 'No such finding', `No finding ${one[1]} in the database.`, context);
    context.period = String(detail.finding.period);
    context.readOnly = await readOnlyReason(warehouse, context.period, config.timezone);
    return answer(detail, () => findingPage(context, { ...detail, decisions }));
  }
  if (path === '/matches') {
    const rows = await matchesOf(warehouse, period!);
    return answer({ period, matches: rows }, () => matchesPage(context, period!, rows));
  }
  if (path === '/actions') {
    const rows = await actionsOfPeriod(warehouse, period!);
    return answer({ period, actions: rows }, () => actionsPage(context, period!, rows));
  }
  return undefined;
}

async function act(
  options: RouteOptions,
  context: PageContext,
  path: string,
  form: URLSearchParams,
  chosen: { query: FindingQuery; seen: number } | undefined,
): Promise<Answer> {
  const { config, actorFor } = options;
  const text = (name: string) => form.get(name)?.trim() || undefined;
  const ids = form.getAll('id').filter((id) => id !== '');
  const back = safeBack(text('back'), context.period);
  let outcome: ActOutcome;
  let title: string;
  if (path === '/findings/decide') {
    title = 'Decision';
    const decide = {
      decision: text('decision') ?? '',
      note: text('note'),
      owner: text('owner'),
      expectedClearBy: text('expected_clear_by'),
    };
    // Ticked findings, or every finding the filters choose (all pages): by id, as findings decide.
    const filtered = text('scope') === 'filtered';
    const named = filtered && chosen ? (w: Warehouse) => filteredFindingIds(w, chosen.query) : ids;
    outcome =
      (filtered ? (chosen?.seen ?? 0) : ids.length) === 0
        ? none('No finding chosen: tick findings, or choose filters that select some.')
        : await decideNamed(config, actorFor, named, decide);
  } else if (path === '/matches/decide') {
    title = 'Suggested matches';
    const verb = text('verb') === 'reject' ? 'reject' : 'confirm';
    outcome = await decideSuggestions(config, actorFor, ids, verb, text('note'));
  } else if (path === '/actions/approve') {
    title = 'Approval';
    outcome = await approve(config, actorFor, context.period!, ids);
  } else {
    return { status: 404, html: messagePage(context, 'Not found', `No form posts to ${path}.`) };
  }
  const status = outcome.refusal ? 409 : 200;
  return { status, html: outcomePage(context, { title, ...outcome, back }) };
}

function none(message: string): ActOutcome {
  return { ok: false, lines: [], refusal: message };
}

/** Only a path of this page may be the way back (never another site). */
function safeBack(back: string | undefined, period: string | null): string {
  if (back?.startsWith('/') && !back.startsWith('//')) return back;
  return period ? `/findings?period=${period}` : '/overview';
}

function failure(
  options: RouteOptions,
  asJson: boolean,
  status: number,
  title: string,
  message: string,
  context?: PageContext,
): Answer {
  if (asJson) return { status, json: { ok: false, error: message } };
  const page = context ?? {
    period: null,
    csrf: options.csrf,
    actor: options.actorName,
    jobRunning: false,
    source: '—',
    readOnly: null,
  };
  return { status, html: messagePage(page, title, message) };
}
