/** `pinrecon extract`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerExtract(program: Command): void {
  withGlobalOptions(program.command('extract').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon extract is not built yet.');
    }),
  );
}
