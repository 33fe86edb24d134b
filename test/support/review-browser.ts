/**
 * For the review page's tests (issue 32): Debian's chromium driven by playwright-core, when this machine has it
 * (`.ci/run` installs it); the tests skip naming what is missing otherwise. And `serve` started through the built
 * CLI, its printed address read from the first line of stdout.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startCli, type RunningCli } from './cli.js';

const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium'];

/** The chromium executable, or undefined (the tests then skip and say why). */
export const chromiumPath = candidates.find((file) => existsSync(file));
export const noChromium = chromiumPath ? '' : `no chromium at ${candidates.join(', ')} (.ci/run installs it)`;

/**
 * Chromium with its own short temporary folder: its singleton socket must fit a Unix socket path (108 bytes), which
 * the test run's nested temporary folders can exceed ("Socket path too long"). Removed when the browser closes.
 */
export async function launchBrowser(): Promise<Browser> {
  const dir = mkdtempSync(path.join('/tmp', 'pinrecon-chromium-'));
  const browser = await chromium.launch({
    executablePath: chromiumPath!,
    args: ['--no-sandbox'],
    env: { ...process.env, TMPDIR: dir },
  });
  browser.on('disconnected', () => rmSync(dir, { recursive: true, force: true }));
  return browser;
}

export interface Serving {
  cli: RunningCli;
  url: string;
  /** The page's origin, e.g. http://127.0.0.1:41234. */
  origin: string;
  /** Stops serve with a signal (SIGTERM unless told) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `pinrecon serve --port 0 …` in `cwd`, once its first stdout line (the address) is printed. */
export async function startServe(cwd: string, args: string[] = []): Promise<Serving> {
  const cli = startCli(['serve', '--port', '0', ...args], { cwd, env: { CI: 'true' } });
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const line = cli.stdout().split('\n')[0];
      if (cli.stdout().includes('\n')) resolve(line!);
    };
    cli.child.stdout.on('data', look);
    cli.done.then((r) => reject(new Error(`serve exited ${r.code} before printing its address:\n${r.stderr}`)));
  });
  return {
    cli,
    url,
    origin: new URL(url).origin,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      cli.child.kill(signal);
      return (await cli.done).code;
    },
  };
}
