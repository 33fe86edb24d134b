/**
 * `pinrecon simulate-api` in a child process for the benchmarks, so the peak RSS they record is pinrecon's
 * own and the simulator's work does not share the measured process's event loop. With `keepResponsesDir`,
 * `renderWindows` has it render the windows a run will ask for before the run is timed (--keep-responses):
 * the timed run then measures pinrecon, not the generator sharing its cores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../core/paths.js';

export interface SimulatorProcessOptions {
  /** Folder for the simulator's config file. */
  dir: string;
  from: string;
  to: string;
  sales: number;
  seed?: number;
  rateLimit?: number;
  malformedEvery?: number;
  timezone?: string;
  identifier: string;
  secret: string;
  /** Keep period answers there (simulate-api --keep-responses). */
  keepResponsesDir?: string;
}

export interface SimulatorProcess {
  url: string;
  child: ChildProcess;
  /** Stops the child and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts the simulator on a free loopback port and resolves once it listens. */
export async function startSimulatorProcess(options: SimulatorProcessOptions): Promise<SimulatorProcess> {
  const config = path.join(options.dir, 'simulator.config.json');
  writeFileSync(config, JSON.stringify({ timezone: options.timezone ?? 'America/Sao_Paulo' }));
  const child = spawn(
    process.execPath,
    [
      path.join(packageRoot(), 'dist', 'cli', 'main.js'),
      'simulate-api',
      '--config',
      config,
      '--port',
      '0',
      '--from',
      options.from,
      '--to',
      options.to,
      '--sales',
      String(options.sales),
      '--seed',
      String(options.seed ?? 1),
      '--rate-limit',
      String(options.rateLimit ?? 50),
      '--malformed-every',
      String(options.malformedEvery ?? 0),
      '--identifier',
      options.identifier,
      '--secret',
      options.secret,
      ...(options.keepResponsesDir ? ['--keep-responses', options.keepResponsesDir] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening at (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`simulate-api exited (${code}) before listening:\n${out}`)));
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A salesByPeriod window as the extract plan cuts it. */
export interface BenchWindow {
  start: string;
  end: string;
  flag: 'paid' | 'created';
}

/**
 * Asks the simulator for each window once, reading and discarding the body, so that with --keep-responses
 * every one of them is rendered before the timed run; returns the seconds it took (the generation's).
 */
export async function renderWindows(
  simulator: SimulatorProcess,
  credentials: { identifier: string; secret: string },
  windows: BenchWindow[],
): Promise<number> {
  const started = process.hrtime.bigint();
  const login = await fetch(`${simulator.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  if (login.status !== 200) throw new Error(`the simulator refused the bench's login: ${await login.text()}`);
  const { accessToken } = (await login.json()) as { accessToken: string };
  for (const window of windows) {
    const answer = await fetch(
      `${simulator.url}/sales/period/${window.start}/${window.end}?searchIsByCreateDate=${window.flag === 'created'}`,
      { headers: { authorization: `Bearer ${accessToken}` } },
    );
    if (answer.status !== 200 || !answer.body)
      throw new Error(`rendering ${window.start}..${window.end} (${window.flag}): ${answer.status}`);
    for await (const _ of answer.body) {
      // read and dropped: the simulator keeps the answer
    }
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Answers kept in the folder so far: if it grows during a timed run, a window was generated inside it. */
export function keptAnswers(dir: string): number {
  return readdirSync(dir).filter((file) => file.endsWith('.json.gz')).length;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th of them.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
