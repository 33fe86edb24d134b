/** `actions` and `journal` in the config (issue 15): defaults, and keys that cannot be right are refused. */
import { expect, test } from 'vitest';
import { configSchema } from '../../config/schema.js';
import { accountsFor } from '../../pipelines/actions/export.js';

test(
  'defaults: no approval limit, no approvers, ' +
    'a reversal asked again 300 s after an unclear answer, one default pair of accounts',
  () => {
    const config = configSchema.parse({});
    expect(config.actions).toEqual({ approvalLimit: {}, approvers: [], resendAfterSeconds: 300 });
    expect(config.journal.accounts).toEqual({ default: { debit: '6100', credit: '2100' } });
  },
);

test(
  'journal.accounts: the most specific key wins; ' + 'a key that is no type or decision, or no default, is refused',
  () => {
    const config = configSchema.parse({
      journal: {
        accounts: {
          default: { debit: '1', credit: '2' },
          write_off: { debit: '3', credit: '4' },
          cost_mismatch: { debit: '5', credit: '6' },
          'cost_mismatch:write_off': { debit: '7', credit: '8' },
        },
      },
    });
    expect(accountsFor(config, 'cost_mismatch', 'write_off')).toEqual({ debit: '7', credit: '8' });
    expect(accountsFor(config, 'cost_mismatch', 'fix_ledger')).toEqual({ debit: '5', credit: '6' });
    expect(accountsFor(config, 'missing_in_ledger', 'write_off')).toEqual({ debit: '3', credit: '4' });
    expect(accountsFor(config, 'missing_in_ledger', 'fix_ledger')).toEqual({ debit: '1', credit: '2' });
    // Issue 30: a sales-price difference is not a cost: without accounts of its own it is refused, never posted
    // to the decision's or the default (cost) accounts.
    expect(() => accountsFor(config, 'price_mismatch', 'write_off')).toThrow(/no entry for price_mismatch/);
    const priced = configSchema.parse({
      journal: { accounts: { ...config.journal.accounts, price_mismatch: { debit: '9', credit: '10' } } },
    });
    expect(accountsFor(priced, 'price_mismatch', 'write_off')).toEqual({ debit: '9', credit: '10' });
    const pair = { debit: '1', credit: '2' };
    expect(() => configSchema.parse({ journal: { accounts: { default: pair, cost_mismatch_: pair } } })).toThrow(
      /a finding type, or \\?"<finding type>:<decision>/,
    );
    expect(() => configSchema.parse({ journal: { accounts: { write_off: pair } } })).toThrow(
      /needs a \\?"default\\?" entry/,
    );
    expect(() => configSchema.parse({ actions: { approvalLimit: { brl: 10 } } })).toThrow(/ISO 4217/);
  },
);
