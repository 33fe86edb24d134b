/**
 * Issue 31 item 2: the README's operations recipes work as written. The cron line runs under `sh -c` with the
 * credentials file exported by `set -a`; the one-shot systemd unit's ExecStart runs as an unprivileged user with no
 * writable home (setpriv; skipped, saying why, when not root); both units have User=, WorkingDirectory= and
 * KillMode=mixed. Each runs the month-end against the simulator and a real SMTP sink. Paths are moved from
 * /srv/pinrecon and /etc/pinrecon to a temporary folder; nothing else of the recipe is changed.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../config/schema.js';
import { periodStart, resolvePeriod, todayIn } from '../../core/calendar.js';
import { packageRoot } from '../../core/paths.js';
import { startMailSink, type MailSink } from '../../doubles/mail-sink/mail-sink.js';
import { generateLedger } from '../../doubles/simulator/ledger-generator.js';
import { startSimulator, type RunningSimulator } from '../../doubles/simulator/server.js';

const timezone = 'America/Sao_Paulo';
const today = todayIn(timezone);
const period = resolvePeriod('previous', today);
const readme = readFileSync(path.join(packageRoot(), 'README.md'), 'utf8');
const nobody = 65534;

/** The body of the first ```lang block of the README holding `marker`. */
function block(lang: string, marker: string): string {
  const fence = '```';
  const found = [...readme.matchAll(new RegExp(`${fence}${lang}\\n([\\s\\S]*?)${fence}`, 'g'))]
    .map((match) => match[1]!)
    .find((body) => body.includes(marker));
  if (!found) throw new Error(`README: no \`\`\`${lang} block holding ${marker}`);
  return found;
}

/** A unit's `Key=value` lines. */
function unitKeys(unit: string): Map<string, string> {
  return new Map(
    unit
      .split('\n')
      .filter((line) => /^\w+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
  );
}

/** Runs a program to its end, keeping its console. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out }));
  });
}

describe('the README recipes, as written', () => {
  let simulator: RunningSimulator;
  let sink: MailSink;
  const folders: string[] = [];

  beforeAll(async () => {
    simulator = await startSimulator({
      seed: 31,
      identifier: 'recipe',
      secret: 'recipe-secret',
      dataset: { from: periodStart(period), to: today, salesCount: 300, timezone },
    });
    sink = await startMailSink(mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'pinrecon-recipe-mail-')));
  });
  afterAll(async () => {
    await simulator?.close();
    await sink?.close();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  /**
   * A service folder like /srv/pinrecon: the config, the ledger, the credentials file, a log folder, and `dist`
   * of this package. Under /tmp itself (the tests' temporary root is private to root), readable by others.
   */
  async function serviceFolder(): Promise<string> {
    const folder = mkdtempSync('/tmp/pinrecon-recipe-');
    folders.push(folder);
    chmodSync(folder, 0o755);
    symlinkSync(path.join(packageRoot(), 'dist'), path.join(folder, 'dist'));
    mkdirSync(path.join(folder, 'log'));
    const config = {
      timezone,
      database: 'data/pinrecon.duckdb',
      ledger: { path: 'ledger.csv' },
      reports: { outDir: 'data/reports' },
      email: { to: ['finance@example.com'], retries: 0 },
      api: { maxRequestsPerSecond: 40 },
    };
    writeFileSync(path.join(folder, 'pinrecon.config.json'), JSON.stringify(config), { mode: 0o644 });
    await generateLedger(simulator.dataset, {
      period,
      asOf: today,
      file: path.join(folder, 'ledger.csv'),
      reconciliation: configSchema.parse({}).reconciliation,
      seed: 5,
      salesPerBreak: 60,
    });
    chmodSync(path.join(folder, 'ledger.csv'), 0o644);
    writeFileSync(
      path.join(folder, 'credentials.env'),
      [
        `PINRECON_API_BASE_URL=${simulator.url}`,
        'PINRECON_API_IDENTIFIER=recipe',
        'PINRECON_API_SECRET=recipe-secret',
        `PINRECON_SMTP_URL=${sink.url}`,
        '',
      ].join('\n'),
    );
    return folder;
  }

  /** The month-end's trace: the database made, the period's workbook written, the email received. */
  function expectMonthEnd(folder: string, mailsBefore: number): void {
    expect(existsSync(path.join(folder, 'data', 'pinrecon.duckdb'))).toBe(true);
    expect(existsSync(path.join(folder, 'data', 'reports', `pinrecon-${period}.xlsx`))).toBe(true);
    expect(sink.received).toHaveLength(mailsBefore + 1);
    expect(readFileSync(sink.received.at(-1)!, 'utf8')).toContain(`pinrecon ${period}`);
  }

  it('runs the cron line with sh -c, the credentials exported by set -a', async () => {
    const cron = block('cron', 'CRON_TZ=');
    const line = cron.split('\n').find((l) => /^\d/.test(l))!;
    const variables = Object.fromEntries(
      cron
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(line).toContain('set -a && . /etc/pinrecon/credentials.env && set +a');
    // /etc/cron.d: five time fields and the user, then the command.
    const command = /^(?:\S+\s+){6}(.*)$/.exec(line)![1]!;
    const folder = await serviceFolder();
    const moved = command
      .replaceAll('/etc/pinrecon/credentials.env', path.join(folder, 'credentials.env'))
      .replaceAll('/var/log/pinrecon', path.join(folder, 'log'))
      .replaceAll('/srv/pinrecon', folder);
    const mails = sink.received.length;
    // cron's environment: its own variables, HOME and SHELL; nothing of this test's (no PINRECON_*).
    const env = { ...variables, HOME: '/root', SHELL: '/bin/sh', LOGNAME: 'root', TMPDIR: '/tmp' };
    const result = await run('sh', ['-c', moved], { cwd: '/', env });
    const log = readFileSync(path.join(folder, 'log', 'pinrecon.log'), 'utf8');
    expect(result.code, `${result.out}\n${log}`).toBe(0);
    expect(result.out, log).toBe('');
    expectMonthEnd(folder, mails);
  });

  it('has User=, WorkingDirectory= and KillMode=mixed in both units, and runs the service without npx', () => {
    const oneShot = unitKeys(block('ini', 'Type=oneshot'));
    const daemon = unitKeys(block('ini', ' schedule '));
    for (const unit of [oneShot, daemon]) {
      expect(unit.get('User')).toBe('pinrecon');
      expect(unit.get('WorkingDirectory')).toBe('/srv/pinrecon');
      expect(unit.get('KillMode')).toBe('mixed');
      expect(unit.get('UMask')).toBe('0077');
      expect(unit.get('ExecStart')).toMatch(/^\/usr\/bin\/node \/srv\/pinrecon\/dist\/cli\/main\.js /);
    }
    expect(readme).toMatch(/```sh\nnpm ci --omit=dev\n```/);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "runs the one-shot unit's ExecStart as an unprivileged user with no writable home (setpriv; needs root)",
    async () => {
      const unit = unitKeys(block('ini', 'Type=oneshot'));
      const folder = await serviceFolder();
      chownSync(folder, nobody, nobody);
      const moved = (text: string) => text.replaceAll('/etc/pinrecon', folder).replaceAll('/srv/pinrecon', folder);
      const environment = Object.fromEntries(
        readFileSync(moved(unit.get('EnvironmentFile')!), 'utf8')
          .split('\n')
          .filter((l) => l.includes('='))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      const [program, ...args] = moved(unit.get('ExecStart')!).split(' ');
      const mails = sink.received.length;
      // What systemd gives a system user's service: its (absent) home, a minimal PATH, the EnvironmentFile.
      const env = { ...environment, HOME: '/nonexistent', PATH: '/usr/bin:/bin', USER: 'nobody' };
      const setpriv = ['--reuid', String(nobody), '--regid', String(nobody), '--clear-groups', '--', program!];
      const result = await run('setpriv', [...setpriv, ...args], { cwd: moved(unit.get('WorkingDirectory')!), env });
      expect(result.code, result.out).toBe(0);
      expect(result.out).not.toMatch(/EACCES|error:/);
      expectMonthEnd(folder, mails);
    },
  );
});
