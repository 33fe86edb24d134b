/** `pinrecon reconcile`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerReconcile(program: Command): void {
  withGlobalOptions(program.command('reconcile').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon reconcile is not built yet.');
    }),
  );
}
