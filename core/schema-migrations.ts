/**
 * The schema migrations, in the order the warehouse runs them when it applies the schema (core/warehouse.ts takes
 * this list; issue 27: the warehouse imports no migration, and no migration the warehouse). Each is one-time: it
 * finds what an older pinrecon left and changes it once.
 */
import { actionEventsNeedChaining, chainExistingActionEvents } from './action-event-chain.js';
import { chainExistingDecisions, decisionsNeedChaining } from './decision-chain.js';
import { copyKeyedSalesBack, salesHasPrimaryKey, setKeyedSalesAside } from './sales-rebuild.js';
import type { SchemaMigration } from './sql-session.js';

export const schemaMigrations: readonly SchemaMigration[] = [
  {
    // A `sales` made with its old primary key is rebuilt without it, all or nothing (core/sales-rebuild.ts).
    name: 'sales without its primary key',
    needed: salesHasPrimaryKey,
    notice: (db) => `${db.path}: rebuilding the sales table without its primary key (once; its rows are kept)`,
    before: setKeyedSalesAside,
    after: copyKeyedSalesBack,
  },
  // Decisions recorded before the audit chain existed are chained once, as the chain's columns arrive.
  { name: 'decisions chained', needed: decisionsNeedChaining, after: chainExistingDecisions },
  { name: 'action events chained', needed: actionEventsNeedChaining, after: chainExistingActionEvents },
];
