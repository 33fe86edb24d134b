/** `pinrecon export`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerExport(program: Command): void {
  withGlobalOptions(program.command('export').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon export is not built yet.');
    }),
  );
}
