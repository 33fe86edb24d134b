/** `pinrecon catalog`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerCatalog(program: Command): void {
  withGlobalOptions(program.command('catalog').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon catalog is not built yet.');
    }),
  );
}
