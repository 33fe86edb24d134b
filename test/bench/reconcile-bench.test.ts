/**
 * The reconcile bench says why a run missed its target (issue 33: "by how much it misses and why"): the stages
 * and the slowest models of the run's own summary, and what the process spent outside them.
 */
import { describe, expect, it } from 'vitest';
import { whereTimeWent } from '../../bench/reconcile.js';

const json = {
  exceptions: 0,
  byType: {},
  lookup: {},
  elapsedSeconds: 9.3,
  stages: { staging: 0.02, intermediate: 6.2, marts: 0.9, tests: 1.5, publish: 0.7 },
  models: {
    int_recon_rows_classified: 0.8,
    int_recon_bridge_items_attributed: 0.85,
    int_recon_pairs_compared: 0.7,
    int_ledger__orders_classified: 0.4,
    recon_exceptions: 0.9,
  },
};

describe('whereTimeWent', () => {
  it('names the stages by size, the three slowest intermediate models and the rest of the process', () => {
    expect(whereTimeWent({ seconds: 9.7, json }, 5)).toBe(
      '; intermediate models 6.2 s (bridge_items_attributed 0.9, rows_classified 0.8, pairs_compared 0.7), ' +
        'data tests 1.5 s, marts 0.9 s, publish 0.7 s, the rest 0.4 s',
    );
  });

  it('says nothing when the target was met', () => {
    expect(whereTimeWent({ seconds: 4.9, json }, 5)).toBe('');
  });
});
