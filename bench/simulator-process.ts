/**
 * `pinrecon simulate-api` in a child process for the benchmarks, so the peak RSS they record is pinrecon's
 * own and the simulator's work does not share the measured process's event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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
