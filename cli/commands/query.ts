/** `pinrecon query`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerQuery(program: Command): void {
  withGlobalOptions(program.command('query').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon query is not built yet.');
    }),
  );
}
