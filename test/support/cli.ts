/**
 * The built CLI (`npm run build` → dist/cli/main.js) as users and schedulers run it, for the tests that spawn
 * it: `runCli` runs a command to its end and gives back its exit and console; `startCli` starts one the test
 * watches (`until` a line is printed), signals or kills itself. Also `unusedPort`, for a server address nothing
 * answers on.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** The CLI as built by `npm run build`. */
export const cliPath = path.resolve(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

export interface CliOptions {
  cwd?: string;
  /** Set over this process's environment; a variable set to `undefined` is left out. */
  env?: NodeJS.ProcessEnv;
  /** Run as another user and group (the test must be root): an analyst's account. */
  as?: { uid: number; gid: number };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcessByStdio<null, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  /** Both streams, in the order their chunks arrived. */
  output(): string;
  /** Settles once the process has exited and its streams are drained. */
  done: Promise<CliResult>;
  /**
   * Settles true once the console so far satisfies `seen` (checked as each chunk arrives), or with what `seen` says
   * of the whole console once the process has ended. No deadline and no polling interval: the event itself is
   * waited for, and the test's timeout is the hang detector.
   */
  until(seen: (output: string) => boolean): Promise<boolean>;
}

/** Starts `pinrecon <args>`; the console is kept as it comes (a test's own listeners on the streams see it kept). */
export function startCli(args: string[], options: CliOptions = {}): RunningCli {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.as && { uid: options.as.uid, gid: options.as.gid }),
  });
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    output += chunk.toString();
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const until = (seen: (output: string) => boolean) =>
    new Promise<boolean>((resolve) => {
      const look = () => {
        if (!seen(output)) return;
        forget();
        resolve(true);
      };
      // Added after the listeners above, so `output` already holds the chunk when `look` runs.
      const forget = () => {
        child.stdout.off('data', look);
        child.stderr.off('data', look);
      };
      child.stdout.on('data', look);
      child.stderr.on('data', look);
      const ended = () => {
        forget();
        resolve(seen(output));
      };
      done.then(ended, ended);
      look();
    });
  return { child, stdout: () => stdout, stderr: () => stderr, output: () => output, done, until };
}

/** Runs `pinrecon <args>` to its end. Asynchronous, so a server the test runs in this process can answer it. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/** A loopback port nothing listens on (yet). */
export async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
