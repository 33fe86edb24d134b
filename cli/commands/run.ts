/** `pinrecon run`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerRun(program: Command): void {
  withGlobalOptions(program.command('run').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon run is not built yet.');
    }),
  );
}
