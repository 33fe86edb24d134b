/** `pinrecon report`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerReport(program: Command): void {
  withGlobalOptions(program.command('report').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon report is not built yet.');
    }),
  );
}
