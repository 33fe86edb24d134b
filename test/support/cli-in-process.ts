/**
 * Runs a pinrecon command in this process (issue 27): the real commander program with the real actions, as main.ts
 * runs it, its console and exit code given back as `runCli` gives them. A spawn of the built CLI costs about a
 * CPU-second, so a test spawns the CLI once per command for its wiring (cli/main.ts, the process's exit) and runs
 * the command's other cases here. For commands that end by themselves: not `serve` or `schedule`, which wait for
 * signals, and not another user's account (`as`), which needs a process of its own.
 *
 * While the command runs it has the process to itself, as a spawned one would: its environment variables and
 * working folder are set, the umask is the CLI's, and what it writes to stdout and stderr is kept instead of
 * printed. All of it is put back afterwards, whatever the command did. Tests in a file run one after another, so
 * nothing else writes meanwhile.
 */
import { CommanderError } from 'commander';
import { buildProgram, commandsFor, usageExitCode } from '../../cli/program.js';
import { privateUmask } from '../../core/file-modes.js';
import type { CliOptions, CliResult } from './cli.js';

type Write = typeof process.stdout.write;

export async function runCommand(args: string[], options: Omit<CliOptions, 'as'> = {}): Promise<CliResult> {
  if ('as' in options) throw new Error('runCommand runs as this process; spawn the CLI to run as another user');
  let stdout = '';
  let stderr = '';
  const keeper =
    (append: (text: string) => void): Write =>
    (chunk: string | Uint8Array, ...rest: unknown[]) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (done) queueMicrotask(done);
      return true;
    };
  const saved = {
    env: { ...process.env },
    cwd: process.cwd(),
    umask: process.umask(privateUmask),
    exitCode: process.exitCode,
    stdoutWrite: process.stdout.write,
    stderrWrite: process.stderr.write,
  };
  try {
    for (const [name, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    if (options.cwd) process.chdir(options.cwd);
    process.exitCode = undefined;
    process.stdout.write = keeper((text) => void (stdout += text));
    process.stderr.write = keeper((text) => void (stderr += text));
    const argv = ['node', 'pinrecon', ...args];
    let code: number;
    try {
      await buildProgram(await commandsFor(argv)).parseAsync(argv);
      code = Number(process.exitCode ?? 0);
    } catch (error) {
      if (!(error instanceof CommanderError)) throw error;
      code = usageExitCode(error);
    }
    return { code, signal: null, stdout, stderr };
  } finally {
    process.stdout.write = saved.stdoutWrite;
    process.stderr.write = saved.stderrWrite;
    process.exitCode = saved.exitCode;
    process.umask(saved.umask);
    process.chdir(saved.cwd);
    for (const name of Object.keys(process.env)) if (!(name in saved.env)) delete process.env[name];
    Object.assign(process.env, saved.env);
  }
}
