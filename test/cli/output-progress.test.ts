/**
 * Progress off a terminal (issue 9): a step longer than ~10 s logs a plain line every ~10 s with done,
 * total, rate and ETA; a short step stays quiet. The clock is injected, so nothing depends on how fast
 * this machine is.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConsoleOutput, progressEveryMs } from '../../cli/output.js';

function offTerminal(clock: { now: number }) {
  let text = '';
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const output = new ConsoleOutput(
    false,
    stream as unknown as NodeJS.WriteStream,
    stream as unknown as NodeJS.WriteStream,
    false,
    () => clock.now,
  );
  return { output, lines: () => text.split('\n').filter(Boolean) };
}

describe('progress lines when stderr is not a terminal', () => {
  it('logs done/total, rate and ETA every 10 s of a long step, and the end when told', () => {
    const clock = { now: Date.parse('2026-11-01T00:00:00Z') };
    const { output, lines } = offTerminal(clock);
    // 400 look-ups at 4 a second: 100 s.
    for (let done = 1; done <= 400; done++) {
      clock.now += 250;
      output.progress(
        { label: 'reference lookups', done, total: 400, facts: { found: Math.floor(done / 10) } },
        done === 400,
      );
    }
    const logged = lines();
    expect(logged.length).toBe(100_000 / progressEveryMs); // at 10.25 s, 20.25 s … 90.25 s, and the end
    expect(logged[0]).toBe('2026-11-01T00:00:10.250Z reference lookups 41/400 · found 4 · rate 4.0/s · ETA 1m30s');
    expect(logged[1]).toMatch(
      /^2026-11-01T00:00:20\.250Z reference lookups 81\/400 · found 8 · rate 4\.0\/s · ETA 1m20s$/,
    );
    expect(logged.at(-1)).toMatch(/reference lookups 400\/400 · found 40 · rate 4\.0\/s$/);
  });

  it('says nothing for a step shorter than 10 s unless told, and times each step from its own start', () => {
    const clock = { now: 0 };
    const { output, lines } = offTerminal(clock);
    for (let done = 1; done <= 9; done++) {
      clock.now += 1_000;
      output.progress({ label: 'windows', done, total: 10 });
    }
    expect(lines()).toEqual([]);
    output.progress({ label: 'windows', done: 10, total: 10 }, true);
    expect(lines()).toHaveLength(1);
    // A later step of the same label starts its own clock: no line before its own 10 s.
    for (let done = 1; done <= 5; done++) {
      clock.now += 1_000;
      output.progress({ label: 'windows', done, total: 10 });
    }
    expect(lines()).toHaveLength(1);
    clock.now += 6_000;
    output.progress({ label: 'windows', done: 6, total: 10, etaSeconds: 40 });
    expect(lines().at(-1)).toMatch(/windows 6\/10 · rate 0\.5\/s · ETA 40s$/);
  });
});
