/**
 * Regenerates `docs/review-overview.png`, the README's picture of the review page (issue 32): runs `pinrecon demo`
 * in a temporary folder, serves its database with `pinrecon serve` as the demo's controller, and has Chromium
 * (Debian's, driven by playwright-core) photograph the overview at 1280×800. Run after `npm run build`:
 * `node dist/scripts/screenshot-review-page.js [--out FILE] [--chromium PATH]`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { packageRoot } from '../core/paths.js';

const cli = path.join(packageRoot(), 'dist', 'cli', 'main.js');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: path.join(packageRoot(), 'docs', 'review-overview.png') },
      chromium: { type: 'string', default: '/usr/bin/chromium' },
    },
  });
  if (!existsSync(values.chromium)) throw new Error(`no chromium at ${values.chromium} (give --chromium PATH)`);
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-screenshot-'));
  try {
    const demo = spawnSync(process.execPath, [cli, 'demo', '--out', 'demo', '--sales-per-day', '60'], {
      cwd: dir,
      encoding: 'utf8',
    });
    if (demo.status !== 0) throw new Error(`pinrecon demo failed:\n${demo.stderr}`);
    const config = path.join(dir, 'demo', 'pinrecon.config.json');
    const identity = path.join(dir, 'demo', 'identities', 'controller.pem');
    const serve = spawn(process.execPath, [cli, 'serve', '--port', '0', '--config', config, '--identity', identity], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let printed = '';
        serve.stdout.on('data', (chunk: Buffer) => {
          printed += chunk.toString();
          if (printed.includes('\n')) resolve(printed.split('\n')[0]!);
        });
        serve.once('exit', (code) => reject(new Error(`pinrecon serve exited ${code} before printing its address`)));
      });
      const browser = await chromium.launch({ executablePath: values.chromium, args: ['--no-sandbox'] });
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        await page.goto(url);
        await page.screenshot({ path: values.out });
      } finally {
        await browser.close();
      }
    } finally {
      // Its folder is removed next: wait for serve to have exited, not just for the signal to be sent.
      if (serve.exitCode === null && serve.signalCode === null) {
        const exited = once(serve, 'exit');
        serve.kill('SIGTERM');
        await exited;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The path only: the picture itself is for a person to look at.
  spawnSync('ls', ['-l', values.out], { stdio: 'inherit' });
}

await main();
