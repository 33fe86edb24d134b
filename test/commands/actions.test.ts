/**
 * `pinrecon actions plan|approve|execute|list|export` command lines in-process (issue 27 item 5): their parse
 * functions and their commander wiring.
 */
import { describe, expect, it } from 'vitest';
import {
  type ApproveOptions,
  type ExecuteOptions,
  type ExportOptions,
  type ListOptions,
  parseActionsApprove,
  parseActionsExecute,
  parseActionsExport,
  parseActionsList,
  parseActionsPlan,
  type PeriodOptions,
} from '../../cli/commands/actions.js';
import { UsageError } from '../../core/errors.js';
import { driven, refused } from './drive.js';

const at = { timeZone: 'UTC', now: new Date('2026-03-15T12:00:00Z') };

describe('actions plan and approve', () => {
  it('take the period and who acts; approve several --action ids or --all', async () => {
    const plan = await driven<PeriodOptions>(['actions', 'plan', '--period', 'previous', '--identity', 'ana.pem']);
    expect(parseActionsPlan(plan.options, at)).toEqual({ period: '2026-02', actor: { identity: 'ana.pem' } });
    const approve = await driven<ApproveOptions>([
      ...['actions', 'approve', '--period', '2026-01', '--action', 'a1', 'a2', '--by', 'Bruno'],
    ]);
    expect(parseActionsApprove(approve.options, at)).toEqual({
      period: '2026-01',
      actor: { by: 'Bruno' },
      actionIds: ['a1', 'a2'],
    });
    const all = await driven<ApproveOptions>(['actions', 'approve', '--period', '2026-01', '--all']);
    expect(parseActionsApprove(all.options, at)).toMatchObject({ all: true });
    expect(() => parseActionsPlan({ period: '2026-1' }, at)).toThrow(/^--period must be a month written YYYY-MM/);
  });
});

describe('actions execute', () => {
  it('a real run unless --dry-run; --after-signoff as given', async () => {
    const plain = await driven<ExecuteOptions>(['actions', 'execute', '--period', '2026-01']);
    expect(parseActionsExecute(plain.options, at)).toEqual({ period: '2026-01', afterSignoff: false });
    const line = ['actions', 'execute', '--period', '2026-01', '--dry-run', '--after-signoff', '--by', 'ops'];
    expect(parseActionsExecute((await driven<ExecuteOptions>(line)).options, at)).toEqual({
      period: '2026-01',
      by: 'ops',
      dryRun: true,
      afterSignoff: true,
    });
  });
});

describe('actions list', () => {
  it('a table of every action unless --status, --format or --json say otherwise', async () => {
    const plain = await driven<ListOptions>(['actions', 'list', '--period', '2026-01']);
    expect(parseActionsList(plain.options, at)).toEqual({ period: '2026-01', format: 'table' });
    const line = ['actions', 'list', '--period', '2026-01', '--status', 'approved', '--format', 'csv'];
    expect(parseActionsList((await driven<ListOptions>(line)).options, at)).toEqual({
      period: '2026-01',
      status: 'approved',
      format: 'csv',
    });
    const json = await driven<ListOptions>(['actions', 'list', '--period', '2026-01', '--json']);
    expect(parseActionsList(json.options, at).format).toBe('json');
  });

  it('refuses an unknown format, and a status that is not one (it listed nothing, silently)', () => {
    const list = (options: Partial<ListOptions>) => () =>
      parseActionsList({ period: '2026-01', format: 'table', ...options }, at);
    expect(list({ format: 'xlsx' })).toThrow('--format must be one of table, csv, json, got "xlsx".');
    expect(list({ status: 'aproved' })).toThrow(UsageError);
    expect(list({ status: 'aproved' })).toThrow(/^--status must be one of proposed, .*approved.*, got "aproved"\.$/);
  });
});

describe('actions export', () => {
  it('a kind, and the format, file, --all and who exports as given', async () => {
    const line = ['actions', 'export', '--period', '2026-01', '--kind', 'journal', '--format', 'csv', '--out', 'j.csv'];
    const { options } = await driven<ExportOptions>([...line, '--all', '--by', 'ops']);
    expect(parseActionsExport(options, at)).toEqual({
      period: '2026-01',
      kind: 'journal',
      format: 'csv',
      out: 'j.csv',
      by: 'ops',
      all: true,
    });
    const plain = await driven<ExportOptions>(['actions', 'export', '--period', '2026-01', '--kind', 'claim']);
    expect(parseActionsExport(plain.options, at)).toEqual({ period: '2026-01', kind: 'claim' });
  });

  it('refuses an unknown kind or format; --kind is required', async () => {
    const base = { period: '2026-01', kind: 'claim' };
    expect(() => parseActionsExport({ ...base, kind: 'refund' }, at)).toThrow(
      '--kind must be claim, undercharge or journal, got "refund".',
    );
    expect(() => parseActionsExport({ ...base, format: 'pdf' }, at)).toThrow(
      '--format must be xlsx or csv, got "pdf".',
    );
    expect((await refused(['actions', 'export', '--period', '2026-01'])).stderr).toContain(
      "required option '--kind <kind>' not specified",
    );
  });
});
