/**
 * Every stderr line off a terminal carries a timestamp, error: and warning: lines too, and `--log-format json`
 * writes one object a line (issue 31); `--period previous|current` is resolved in the configured zone by the one
 * shared parser. The clock is injected, so nothing depends on when the test runs.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConsoleOutput, stampLines } from '../../cli/output.js';
import { parsePeriodOption } from '../../cli/period.js';
import { UsageError } from '../../core/errors.js';

function capture(terminal: boolean, logFormat: 'text' | 'json' = 'text') {
  let text = '';
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const at = Date.parse('2026-11-01T12:00:00Z');
  const sink = stream as unknown as NodeJS.WriteStream;
  const output = new ConsoleOutput(false, sink, sink, terminal, () => at, logFormat);
  return { output, lines: () => text.split('\n').filter(Boolean) };
}

describe('stderr lines', () => {
  it('off a terminal: info, warning and error lines all start with the time', () => {
    const { output, lines } = capture(false);
    output.info('extracting');
    output.warn('slow provider');
    output.error('the job failed');
    expect(lines()).toEqual([
      '2026-11-01T12:00:00.000Z extracting',
      '2026-11-01T12:00:00.000Z warning: slow provider',
      '2026-11-01T12:00:00.000Z error: the job failed',
    ]);
  });

  it('on a terminal: bare lines for people', () => {
    const { output, lines } = capture(true);
    output.warn('slow provider');
    output.error('failed');
    expect(lines()).toEqual(['warning: slow provider', 'error: failed']);
  });

  it('--log-format json: one object a line with time, level and message, control characters escaped', () => {
    const { output, lines } = capture(true, 'json');
    output.info('extracting');
    output.error('bad \u001b[31mname');
    output.progress({ label: 'windows', done: 1, total: 1 }, true);
    const parsed = lines().map((line) => JSON.parse(line));
    expect(parsed[0]).toEqual({ time: '2026-11-01T12:00:00.000Z', level: 'info', message: 'extracting' });
    expect(parsed[1]).toMatchObject({ level: 'error' });
    expect(lines()[1]).not.toContain('\u001b');
    expect(parsed[2]).toMatchObject({ level: 'info', message: 'windows 1/1' });
  });
});

describe("another library's stderr text (commander's usage errors)", () => {
  it('gets the time on each line off a terminal, and is left alone on one', () => {
    const text = "error: unknown option '--x'\n(run with --help for usage)\n";
    const at = () => Date.parse('2026-11-01T12:00:00Z');
    expect(stampLines(text, false, at)).toBe(
      "2026-11-01T12:00:00.000Z error: unknown option '--x'\n2026-11-01T12:00:00.000Z (run with --help for usage)\n",
    );
    expect(stampLines(text, true, at)).toBe(text);
  });
});

describe('--period', () => {
  const now = new Date('2026-03-01T01:30:00Z'); // still February in São Paulo (UTC-3)

  it('takes previous and current in the configured zone, and YYYY-MM as it is', () => {
    expect(parsePeriodOption('previous', '--period', 'America/Sao_Paulo', now)).toBe('2026-01');
    expect(parsePeriodOption('current', '--period', 'America/Sao_Paulo', now)).toBe('2026-02');
    expect(parsePeriodOption('current', '--period', 'UTC', now)).toBe('2026-03');
    expect(parsePeriodOption('2025-12', '--period', 'UTC', now)).toBe('2025-12');
  });

  it('refuses anything else, naming the option and the words it takes', () => {
    expect(() => parsePeriodOption('last', '--period', 'UTC', now)).toThrow(UsageError);
    expect(() => parsePeriodOption('2026-13', '--period', 'UTC', now)).toThrow(/YYYY-MM, "previous" or "current"/);
  });
});
