import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../../core/calendar.js';
import { markWindows, planWindows, windowDays, type CompletedWindow } from '../../../pipelines/extract/plan.js';

const range = (windows: { start: string; end: string }[]) => windows.map((w) => `${w.start}..${w.end}`);

describe('extract window plan', () => {
  it('cuts a range at month boundaries, whole months when the cap is 31', () => {
    const plan = planWindows('2026-01-15', '2026-03-10', 'paid', 31);
    expect(range(plan)).toEqual(['2026-01-15..2026-01-31', '2026-02-01..2026-02-28', '2026-03-01..2026-03-10']);
    expect(plan.every((w) => w.flag === 'paid')).toBe(true);
  });

  it('knows leap years', () => {
    expect(range(planWindows('2024-02-01', '2024-03-01', 'created', 31))).toEqual([
      '2024-02-01..2024-02-29',
      '2024-03-01..2024-03-01',
    ]);
    // 2100 is not a leap year (divisible by 100, not by 400); 2000 was.
    expect(range(planWindows('2100-02-01', '2100-03-01', 'paid', 31))).toEqual([
      '2100-02-01..2100-02-28',
      '2100-03-01..2100-03-01',
    ]);
    expect(range(planWindows('2000-02-01', '2000-03-01', 'paid', 31))).toEqual([
      '2000-02-01..2000-02-29',
      '2000-03-01..2000-03-01',
    ]);
  });

  it('puts both flags of each window side by side when asked for both', () => {
    const plan = planWindows('2025-12-20', '2026-01-05', 'both', 31);
    expect(plan.map((w) => `${w.start}/${w.flag}`)).toEqual([
      '2025-12-20/paid',
      '2025-12-20/created',
      '2026-01-01/paid',
      '2026-01-01/created',
    ]);
  });

  it('aligns shorter caps on the 1st of the month, so any range reuses the same windows', () => {
    expect(range(planWindows('2026-01-05', '2026-01-31', 'paid', 10))).toEqual([
      '2026-01-05..2026-01-10',
      '2026-01-11..2026-01-20',
      '2026-01-21..2026-01-30',
      '2026-01-31..2026-01-31',
    ]);
  });

  it('never plans a window over the cap or across a month, and covers every day exactly once (property)', () => {
    const day = fc.integer({ min: 0, max: 3 * 365 }).map((n) => addDays('2023-11-15', n));
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 31 }), (from, length, cap) => {
        const to = addDays(from, length);
        const plan = planWindows(from, to, 'paid', cap);
        let next = from;
        for (const w of plan) {
          expect(w.start).toBe(next);
          expect(w.start <= w.end).toBe(true);
          expect(w.start.slice(0, 7)).toBe(w.end.slice(0, 7));
          expect(windowDays(w.start, w.end)).toBeLessThanOrEqual(cap);
          next = addDays(w.end, 1);
        }
        expect(next).toBe(addDays(to, 1));
      }),
    );
  });

  it(
    'cannot plan a window of 32 days: the cap itself is at most ' +
      '31 days by the config schema, and a month has at most 31',
    () => {
      const longest = Math.max(
        ...planWindows('2020-01-01', '2030-12-31', 'paid', 31).map((w) => windowDays(w.start, w.end)),
      );
      expect(longest).toBe(31);
    },
  );

  it('rejects a reversed range', () => {
    expect(() => planWindows('2026-02-01', '2026-01-01', 'paid', 31)).toThrow(/after it ends/);
  });

  describe('checkpoints and lookback', () => {
    const windows = planWindows('2026-01-01', '2026-03-31', 'both', 31);
    const done = (start: string, end: string, flag: 'paid' | 'created', completedOn: string): CompletedWindow => ({
      start,
      end,
      flag,
      completedOn,
    });

    it('skips windows done after they ended and before the lookback; re-fetches recent ones', () => {
      const completed = [
        done('2026-01-01', '2026-01-31', 'paid', '2026-02-02'),
        done('2026-01-01', '2026-01-31', 'created', '2026-02-02'),
        done('2026-02-01', '2026-02-28', 'paid', '2026-03-02'),
      ];
      const plan = markWindows(windows, completed, '2026-03-20', 35);
      expect(plan.map((w) => `${w.start}/${w.flag}:${w.action}`)).toEqual([
        '2026-01-01/paid:skip',
        '2026-01-01/created:skip',
        '2026-02-01/paid:refetch', // ends 2026-02-28, within 35 days of 2026-03-20
        '2026-02-01/created:fetch',
        '2026-03-01/paid:fetch',
        '2026-03-01/created:fetch',
      ]);
    });

    it('re-fetches a window extracted while it was still open, whatever the lookback', () => {
      const plan = markWindows(windows, [done('2026-01-01', '2026-01-31', 'paid', '2026-01-15')], '2026-12-01', 0);
      expect(plan[0]!.action).toBe('refetch');
      expect(plan[0]!.reason).toMatch(/before the window had ended/);
    });

    it('counts a window as done when a larger completed window of the same flag covers it', () => {
      const partial = planWindows('2026-01-10', '2026-01-20', 'both', 31);
      const plan = markWindows(partial, [done('2026-01-01', '2026-01-31', 'paid', '2026-02-05')], '2026-12-01', 35);
      expect(plan.map((w) => w.action)).toEqual(['skip', 'fetch']);
    });
  });
});
