/**
 * The `actions` and `journal` sections of the configuration: who may approve what, and the journal's accounts.
 */
import { z } from 'zod';
import { isDecision } from '../../core/decisions.js';
import { findingTypeNames } from '../../core/finding-types.js';
import { money } from './common.js';

const isFindingType = (text: string) => (findingTypeNames as readonly string[]).includes(text);

/** `pinrecon actions`: who may approve what (maker-checker, README "Acting on findings"). */
export const actionsSchema = z
  .strictObject({
    /**
     * Per currency (ISO 4217 → amount): an action whose amount is above it may be approved only by one of
     * `approvers`. A currency not listed has no limit (any second person may approve). The person who
     * decided the finding never approves its action, whatever the amount.
     * @default {}
     */
    approvalLimit: z
      .record(z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as "BRL"'), money)
      .default({}),
    /**
     * The names (as given to `--by`) that may approve actions above `approvalLimit`.
     * @default []
     */
    approvers: z.array(z.string().min(1)).default([]),
    /**
     * After a reversal got no clear answer (a timeout, a 5xx, a dropped connection), the seconds before a later
     * `actions execute` may request it again, once it has read the sale still live (issue 34).
     * @default 300
     */
    resendAfterSeconds: z.number().int().nonnegative().default(300),
  })
  .prefault({});

export type ActionsConfig = z.output<typeof actionsSchema>;

/** `pinrecon actions export --kind journal`: the accounts of the journal entries. */
export const journalSchema = z
  .strictObject({
    /**
     * Debit and credit account per finding type and decision. Keys: `default`, a decision (`write_off`,
     * `fix_ledger`), a finding type (`cost_mismatch`) or both (`cost_mismatch:write_off`); the most
     * specific key wins (type:decision, then type, then decision, then default). A negative difference
     * (a gain) swaps the two accounts.
     * @default { default: { debit: '6100', credit: '2100' } }
     */
    accounts: z
      .record(z.string().min(1), z.strictObject({ debit: z.string().min(1), credit: z.string().min(1) }))
      .default({ default: { debit: '6100', credit: '2100' } })
      .superRefine((accounts, context) => {
        if (!('default' in accounts)) {
          context.addIssue({ code: 'custom', message: 'needs a "default" entry ({ "debit": "…", "credit": "…" })' });
        }
        for (const key of Object.keys(accounts)) {
          const [type, decision, ...rest] = key.split(':');
          const typed = isFindingType(type!) && rest.length === 0 && (decision === undefined || isDecision(decision));
          const known = key === 'default' || isDecision(key) || typed;
          if (!known) {
            const message = 'must be "default", a decision, a finding type, or "<finding type>:<decision>"';
            context.addIssue({ code: 'custom', path: [key], message });
          }
        }
      }),
  })
  .prefault({});

export type JournalConfig = z.output<typeof journalSchema>;
