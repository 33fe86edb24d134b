/** `pinrecon demo`'s command line in-process (issue 27 item 5): its parse function and its commander wiring. */
import { describe, expect, it } from 'vitest';
import { type DemoCommandOptions, parseDemo } from '../../cli/commands/demo.js';
import { UsageError } from '../../core/errors.js';
import { driven } from './drive.js';

describe('parseDemo', () => {
  it("commander's defaults: demo-output, 300 sales a day, seed 7; the options as given", async () => {
    const plain = await driven<DemoCommandOptions>(['demo']);
    expect(parseDemo(plain.options)).toEqual({ outDir: 'demo-output', salesPerDay: 300, seed: 7 });
    const given = await driven<DemoCommandOptions>(['demo', '--out', 'd', '--sales-per-day', '40', '--seed', '3']);
    expect(parseDemo(given.options)).toEqual({ outDir: 'd', salesPerDay: 40, seed: 3 });
  });

  it('refuses numbers that are not whole (they were passed on as NaN)', () => {
    expect(() => parseDemo({ salesPerDay: 'lots' })).toThrow(UsageError);
    expect(() => parseDemo({ salesPerDay: 'lots' })).toThrow(/^--sales-per-day must be a whole number from 0 to /);
    expect(() => parseDemo({ seed: '1.5' })).toThrow(/^--seed must be a whole number from 0 to \d+, got "1\.5"\.$/);
  });
});
