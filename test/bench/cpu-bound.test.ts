/**
 * The benches say when a missed wall-time target could not have been met by keeping the cores busier (issue 33: "by
 * how much it misses and why"): the run's own CPU alone, spread over every core, takes longer than the target.
 */
import { describe, expect, it } from 'vitest';
import { cpuBound } from '../../bench/measures/cpu-bound.js';

describe('cpuBound', () => {
  it('gives the least time the CPU used needs on the cores, and the CPU the target allows', () => {
    expect(cpuBound(46.9, 73.8, 20, 2)).toBe(
      '; 73.8 CPU-s: on 2 cores ≥ 36.9 s with every core busy, so 20 s needs ≤ 40 CPU-s (46 % less)',
    );
  });

  it('says nothing when the cores had room to meet the target', () => {
    expect(cpuBound(46.9, 30, 20, 2)).toBe('');
  });

  it('says nothing when the target was met', () => {
    expect(cpuBound(19.5, 45, 20, 2)).toBe('');
  });
});
