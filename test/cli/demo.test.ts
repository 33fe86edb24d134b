import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../core/warehouse.js';
import { addMonths, periodOf, periodStart, todayIn } from '../../core/calendar.js';
import { maskPin } from '../../core/masking.js';
import { Dataset } from '../../doubles/simulator/dataset.js';
import { runCli, startCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { wholeKeysUnder } from '../support/key-scan.js';

/**
 * The whole keys the demo's simulator sells (pipelines/ops/demo.ts: seed 7, 300 sales a day from the period's start).
 */
function demoKeys(): Set<string> {
  const timezone = 'America/Sao_Paulo';
  const asOf = todayIn(timezone);
  const from = periodStart(addMonths(periodOf(asOf), -1));
  const days = Math.round((Date.parse(`${asOf}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
  const dataset = new Dataset({ from, to: asOf, salesCount: days * 300, timezone, malformedEvery: 2_500, seed: 7 });
  return new Set(Array.from({ length: dataset.size }, (_, i) => dataset.sale(i).key!).filter(Boolean));
}

/** The environment of a new user: no pinrecon variables (set to undefined: left out), not a terminal. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.keys(process.env)
      .filter((name) => name.startsWith('PINRECON_'))
      .map((name) => [name, undefined]),
  );
}

describe('pinrecon demo, as a new user runs it', () => {
  it('runs the month-end job on the embedded default and says where everything went', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-demo-'));
    // The usual umask of a login shell: pinrecon must make what it writes private by itself.
    const umask = process.umask(0o022);
    // How long it takes is the demo's own line ("done in N s"), not an assertion: a loaded machine (load 20
    // on two cores this week) took 93 s where a quiet one takes 5.
    const { code, stdout, stderr } = await runCli(['demo'], { cwd: dir, env: cleanEnvironment() }).finally(() =>
      // Put back: the cli files share this worker (isolate: false), and the umask is the process's.
      process.umask(umask),
    );
    expect(code, stderr).toBe(0);
    expect(stdout + stderr).toMatch(/done in [\d.]+ ?s/);

    const out = path.join(dir, 'demo-output');
    const database = path.join(out, 'pinrecon.duckdb');
    const period = /Findings for (\d{4}-\d{2})/.exec(stdout)?.[1];
    expect(period).toBeDefined();
    const workbook = path.join(out, 'reports', `pinrecon-${period}.xlsx`);
    const eml = path.join(out, 'mail', '001.eml');
    for (const file of [
      database,
      workbook,
      eml,
      path.join(out, 'ledger.csv'),
      path.join(out, 'pinrecon.snapshot.duckdb'),
    ]) {
      expect(existsSync(file), file).toBe(true);
      expect(stdout).toContain(file);
    }
    for (const step of ['extract', 'ledger import', 'reconcile', 'report + email'])
      expect(stdout).toMatch(new RegExp(`${step.replace('+', '\\+')}\\s+succeeded`));
    // It ends with the month-end's next steps: decide in the workbook, import the decisions, close.
    expect(stdout).toContain(`findings import ${workbook}`);
    expect(stdout).toContain(`close --period ${period}`);

    // The email arrived with the workbook intact and the headline numbers in its body.
    const mail = await simpleParser(readFileSync(eml));
    const attachment = mail.attachments.find((a) => a.filename === `pinrecon-${period}.xlsx`);
    expect(attachment?.content.equals(readFileSync(workbook))).toBe(true);

    const warehouse = await Warehouse.open(database, { readOnly: true });
    try {
      // The printed findings are the database's.
      const byType = await warehouse.all<{ exception_type: string; n: number }>(
        `select exception_type, count(*)::INTEGER as n from recon_exceptions where period = $1 group by 1`,
        [period!],
      );
      expect(byType.length).toBeGreaterThanOrEqual(10);
      for (const row of byType) expect(stdout).toMatch(new RegExp(`${row.exception_type}\\s+${row.n}\\b`));
      expect(mail.text).toContain(String(byType.find((r) => r.exception_type === 'unredeemed_key')?.n));

      // Every step is recorded and succeeded.
      const runs = await warehouse.all<{ command: string; status: string }>(
        `select command, status from pipeline_runs order by started_at`,
      );
      expect(runs.map((r) => r.command)).toEqual(
        expect.arrayContaining(['run', 'extract', 'ledger import', 'reconcile', 'report']),
      );
      expect(runs.every((r) => r.status === 'succeeded')).toBe(true);

      // Issue 15: one reversal decided by one person, approved by another, executed and verified; the month's
      // roll-forward adds up.
      expect(stdout).toMatch(/reversal of sale \d+ \(refunded_not_reversed PO-/);
      expect(stdout).toMatch(/decided by Demo Controller, approved by Demo Approver, executed: VERIFIED/);
      const actions = await warehouse.all<{ kind: string; status: string; decided_by: string; approved_by: string }>(
        `select kind, status, decided_by, approved_by from recon_actions where period = $1`,
        [period!],
      );
      expect(actions).toEqual([
        { kind: 'reversal', status: 'verified', decided_by: 'Demo Controller', approved_by: 'Demo Approver' },
      ]);
      const checks = await warehouse.all<{ check_count: string; check_amount: string }>(
        `select check_count::VARCHAR as check_count, check_amount::VARCHAR as check_amount from recon_roll_forward ` +
          `where period = $1`,
        [period!],
      );
      expect(checks.length).toBeGreaterThan(0);
      for (const c of checks) expect([Number(c.check_count), Number(c.check_amount)]).toEqual([0, 0]);

      // No whole PIN in what the demo printed, nor anywhere it wrote (security.keys "hash", the default of a
      // new database): not in the database, the snapshot, the landing files (decompressed too), the workbook or the
      // mail.
      const keys = demoKeys();
      expect(keys.size).toBeGreaterThan(1000);
      const masked = await warehouse.all<{ key: string; key_hmac: string }>(
        `select key, key_hmac from sales where key is not null`,
      );
      expect(masked.length).toBeGreaterThan(1000);
      expect(masked.every((row) => /^\*{4}.{4}$/.test(row.key) && /^[0-9a-f]{64}$/.test(row.key_hmac))).toBe(true);
      // The keys looked for are the ones the demo sold (else finding none would prove nothing).
      const soldEndings = new Set([...keys].map((key) => maskPin(key)));
      expect(masked.filter((row) => !soldEndings.has(row.key))).toEqual([]);
      const printed = stdout + stderr;
      for (const key of keys)
        if (printed.includes(key)) throw new Error(`a whole PIN ending ${key.slice(-4)} was printed`);
      expect(wholeKeysUnder(out, keys)).toEqual([]);

      // Everything the demo wrote is private: files 0600, folders 0700.
      for (const entry of readdirSync(out, { withFileTypes: true, recursive: true })) {
        const file = path.join(entry.parentPath, entry.name);
        expect((statSync(file).mode & 0o777).toString(8), file).toBe(entry.isDirectory() ? '700' : '600');
      }
      expect((statSync(out).mode & 0o777).toString(8)).toBe('700');
    } finally {
      warehouse.close();
    }

    // Issue 30 item 8: every command of the next steps works as printed, with the demo's settings (its config
    // file): nothing proven before becomes unproven, nothing is written outside the folder. They run in this process
    // with the printed arguments and environment (issue 27: their wiring is proven by their own spawned tests);
    // simulate-api serves until signalled, so it is spawned.
    const configFile = path.join(out, 'pinrecon.config.json');
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toMatchObject({
      database,
      reports: { outDir: path.join(out, 'reports') },
    });
    expect(readFileSync(configFile, 'utf8')).not.toMatch(/secret/i);
    const proofs = async () => {
      const w = await Warehouse.open(database, { readOnly: true });
      try {
        return await w.all(
          `select proof, count(*)::INTEGER as n from recon_exceptions
           where period = $1 and proof is not null group by 1 order by 1`,
          [period!],
        );
      } finally {
        w.close();
      }
    };
    const before = await proofs();
    const commands = printedCommands(stdout);
    expect(commands.map((c) => c.args[0])).toEqual([
      'query',
      'findings',
      'findings',
      'actions',
      'actions',
      'actions',
      'simulate-api',
      'actions',
      'reconcile',
      'close',
    ]);
    let simulator: ReturnType<typeof startCli> | undefined;
    try {
      for (const command of commands) {
        const env = { ...cleanEnvironment(), ...command.env };
        if (command.args[0] === 'simulate-api') {
          simulator = startCli(command.args, { cwd: dir, env });
          if (!(await simulator.until((out) => /http:\/\/127\.0\.0\.1:\d+/.test(out))))
            throw new Error(`simulate-api ended: ${simulator.output()}`);
          continue;
        }
        const result = await runCommand(command.args, { cwd: dir, env });
        if (command.args[0] === 'close') {
          // Signing off waits until every finding is decided (step 1): refused for that reason, not for a setting.
          expect(result.code).toBe(1);
          expect(result.stderr).toMatch(/undecided/);
        } else expect(result.code, `${command.args.join(' ')}: ${result.stderr}`).toBe(0);
      }
    } finally {
      simulator?.child.kill('SIGTERM');
      await simulator?.done;
    }
    expect(await proofs()).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(['demo-output']);
  });
});

/** The commands the demo printed (the query line and the next steps), as arguments and environment. */
function printedCommands(stdout: string): { env: Record<string, string>; args: string[] }[] {
  const found: { env: Record<string, string>; args: string[] }[] = [];
  for (const raw of stdout.split('\n')) {
    const line = raw.replace(/^\s+(\d+\.\s+|then\s+)?/, '').split(/\s{3}\(/)[0]!;
    const words = [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
    const env: Record<string, string> = {};
    while (words[0] && /^PINRECON_\w+=/.test(words[0])) {
      const [name, ...value] = words.shift()!.split('=');
      env[name!] = value.join('=');
    }
    if (words[0] === 'node' && words[1]?.endsWith(path.join('dist', 'cli', 'main.js'))) words.splice(0, 2);
    else if (words[0] === 'npx' && words[1] === 'pinrecon') words.splice(0, 2);
    else continue;
    found.push({ env, args: words });
  }
  return found;
}
