/** `pinrecon schedule`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerSchedule(program: Command): void {
  withGlobalOptions(program.command('schedule').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon schedule is not built yet.');
    }),
  );
}
