/** `pinrecon demo`: placeholder until its issue lands. */
import type { Command } from 'commander';
import { action, withGlobalOptions } from '../context.js';
import { JobError } from '../../config/errors.js';

export function registerDemo(program: Command): void {
  withGlobalOptions(program.command('demo').description('(not yet built)')).action(
    action(async () => {
      throw new JobError('pinrecon demo is not built yet.');
    }),
  );
}
