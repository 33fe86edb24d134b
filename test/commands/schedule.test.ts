/** `pinrecon schedule`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { parseSchedule, type ScheduleCommandOptions } from '../../cli/commands/schedule.js';
import { UsageError } from '../../core/errors.js';
import { driven } from './drive.js';

describe('parseSchedule', () => {
  it('gives a running job 60 s after SIGTERM unless --grace-seconds says otherwise', async () => {
    expect(parseSchedule((await driven<ScheduleCommandOptions>(['schedule'])).options)).toEqual({ graceMs: 60_000 });
    const given = await driven<ScheduleCommandOptions>(['schedule', '--grace-seconds', '1.5']);
    expect(parseSchedule(given.options)).toEqual({ graceMs: 1500 });
    expect(parseSchedule({ graceSeconds: '0' })).toEqual({ graceMs: 0 });
  });

  it('refuses a grace that is not a number (it was taken as none: the job abandoned at once)', () => {
    for (const graceSeconds of ['90s', 'abc', '-5', ''])
      expect(() => parseSchedule({ graceSeconds }), graceSeconds).toThrow(UsageError);
    expect(() => parseSchedule({ graceSeconds: '90s' })).toThrow(
      '--grace-seconds must be a number of seconds (0 or more), got "90s".',
    );
  });
});
