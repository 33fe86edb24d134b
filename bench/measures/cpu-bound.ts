/**
 * Why a run missed a wall-time target when using the cores better could not have met it (issue 33: "by how much it
 * misses and why"): its own CPU alone, spread over every core, already takes longer than the target.
 */
import { availableParallelism } from 'node:os';
import { round } from '../month-fixture.js';

/** "; 70.3 CPU-s: on 2 cores ≥ 35.2 s with every core busy, so 20 s needs ≤ 40 CPU-s (43 % less)", or nothing. */
export function cpuBound(seconds: number, cpuSeconds: number, target: number, cores = availableParallelism()): string {
  const floor = cpuSeconds / cores;
  if (seconds <= target || floor <= target) return '';
  const budget = target * cores;
  return (
    `; ${round(cpuSeconds)} CPU-s: on ${cores} cores ≥ ${round(floor)} s with every core busy, so ${target} s ` +
    `needs ≤ ${round(budget)} CPU-s (${Math.round((1 - budget / cpuSeconds) * 100)} % less)`
  );
}
