/** `pinrecon ledger import FILE`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerLedger(program: Command): void {
  const ledger = program.command('ledger').description('the partner ledger');
  withGlobalOptions(ledger.command('import <file>').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon ledger import is not built yet.');
    }),
  );
}
