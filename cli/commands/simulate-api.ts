/** `pinrecon simulate-api`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerSimulateApi(program: Command): void {
  withGlobalOptions(program.command('simulate-api').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon simulate-api is not built yet.');
    }),
  );
}
