/**
 * Issue 8 item 1, issue 31 item 3 and issue 34 item 5: what pinrecon writes is private (or 0640 with
 * analysts.group when it is for analysts); it changes the modes of the files holding keys and of what it writes,
 * nothing else (a shared landing folder, a snapshot an operator opened, another file named as the database);
 * a linked ledger is read only when the config says so; a killed run's temporaries are removed at the next start.
 * A first ledger import is spawned (the modes a process gets from main.ts's umask, whatever the shell's), as are
 * the analyst's queries (another account) and the query finding a live process's temporary (another process);
 * the other commands run in this process (runCommand, which sets the CLI's umask), a spawn costing a CPU-second.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';

const mode = (file: string) => statSync(file).mode & 0o777;
const ledgerText =
  'partner_reference,product_id,paid_at,sales_price,expected_cost,currency_code,country_code,order_status\n' +
  'PO-1,10,2026-01-05,10.00,8.00,BRL,BR,paid\n';

/** A folder with a config (database in data/, landing in landing/, reports in reports/) and a ledger. */
function setup(extra: Record<string, unknown> = {}): { dir: string; config: string; ledger: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-modes-'));
  const ledger = path.join(dir, 'ledger.csv');
  writeFileSync(ledger, ledgerText);
  const config = path.join(dir, 'pinrecon.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      database: 'data/pinrecon.duckdb',
      extract: { landingDir: 'landing' },
      reports: { outDir: 'reports' },
      ...extra,
    }),
  );
  return { dir, config, ledger };
}

/** A process id that is not running: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** A group other than this process's own, when the system has one this account may give files to. */
function otherGroup(): { name: string; gid: number } | undefined {
  const own = process.getgid!();
  const groups = readFileSync('/etc/group', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .filter((fields) => fields.length >= 3 && fields[0] && Number(fields[2]) !== own)
    .map((fields) => ({ name: fields[0]!, gid: Number(fields[2]) }));
  if (process.getuid!() === 0) return groups[0];
  const mine = new Set(process.getgroups!());
  return groups.find((group) => mine.has(group.gid));
}

describe('file modes', () => {
  it('creates private files, keeps the database private, leaves alone what it was not asked to change', async () => {
    const { dir, config, ledger } = setup();
    // A landing folder shared with others (1777), holding someone else's file: never walked, never chmodded.
    const landing = path.join(dir, 'landing');
    mkdirSync(landing);
    chmodSync(landing, 0o1777);
    const theirs = path.join(landing, 'their-notes.txt');
    writeFileSync(theirs, 'not pinrecon', { mode: 0o644 });
    chmodSync(theirs, 0o644);

    // Spawned under a login shell's umask, whatever this worker's is (a test that leaked a private one would let this
    // pass without main.ts's): the modes below are the ones pinrecon gives by itself. Put back after: the cli files
    // share their worker (isolate: false), and the umask is the process's.
    const umask = process.umask(0o022);
    const first = await runCli(['ledger', 'import', ledger, '--config', config], { cwd: dir }).finally(() =>
      process.umask(umask),
    );
    expect(first.code, first.stderr).toBe(0);
    const database = path.join(dir, 'data', 'pinrecon.duckdb');
    const snapshot = path.join(dir, 'data', 'pinrecon.snapshot.duckdb');
    expect(mode(path.join(dir, 'data'))).toBe(0o700);
    expect(mode(database)).toBe(0o600);
    expect(mode(snapshot)).toBe(0o600);
    expect(statSync(landing).mode & 0o7777).toBe(0o1777);
    expect(mode(theirs)).toBe(0o644);

    // An operator shares the snapshot by hand: a query does not turn it back (it did: "made private (0600)").
    chmodSync(snapshot, 0o640);
    const query = await runCommand(['query', 'select 1 as one', '--config', config], { cwd: dir });
    expect(query.code, query.stderr).toBe(0);
    expect(mode(snapshot)).toBe(0o640);
    expect(query.stderr).not.toContain('made private');

    // The database holds keys: loosened, it is made private again, saying so.
    chmodSync(database, 0o644);
    const again = await runCommand(['query', 'select 1 as one', '--config', config], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(mode(database)).toBe(0o600);
    expect(again.stderr).toContain(`${database} was readable by others (mode 0644): made private (0600)`);
    expect(statSync(landing).mode & 0o7777).toBe(0o1777);
  });

  it('says in query how to share the snapshot, and with analysts.group writes it 0640 with that group', async () => {
    const { dir, config, ledger } = setup();
    expect((await runCommand(['ledger', 'import', ledger, '--config', config], { cwd: dir })).code).toBe(0);
    const query = await runCommand(['query', 'select 1 as one', '--config', config], { cwd: dir });
    expect(query.stderr).toMatch(/private to this account.*analysts\.group/);

    const group = otherGroup() ?? { name: String(process.getgid!()), gid: process.getgid!() };
    const shared = setup({ analysts: { group: group.name } });
    const imported = await runCommand(['ledger', 'import', shared.ledger, '--config', shared.config], {
      cwd: shared.dir,
    });
    expect(imported.code, imported.stderr).toBe(0);
    const snapshot = path.join(shared.dir, 'data', 'pinrecon.snapshot.duckdb');
    expect(mode(snapshot)).toBe(0o640);
    expect(statSync(snapshot).gid).toBe(group.gid);
    // The database itself stays private: analysts read the snapshot.
    expect(mode(path.join(shared.dir, 'data', 'pinrecon.duckdb'))).toBe(0o600);
    const sharedQuery = await runCommand(['query', 'select 1 as one', '--config', shared.config], { cwd: shared.dir });
    expect(sharedQuery.stderr).toContain(`readable by the group ${group.name}`);

    const unknown = setup({ analysts: { group: 'no-such-group-pinrecon' } });
    const refused = await runCommand(['ledger', 'import', unknown.ledger, '--config', unknown.config], {
      cwd: unknown.dir,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('analysts.group: there is no group "no-such-group-pinrecon"');
  });

  it.skipIf(process.getuid?.() !== 0)(
    'lets an analyst on another account query a shared snapshot, and tells one who may not how to share (needs root)',
    async () => {
      // Under /tmp itself: the tests' temporary root is private to root.
      const dir = mkdtempSync('/tmp/pinrecon-analyst-');
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      chmodSync(dir, 0o755);
      const ledger = path.join(dir, 'ledger.csv');
      writeFileSync(ledger, ledgerText, { mode: 0o644 });
      const configOf = (extra: Record<string, unknown>, name: string) => {
        const file = path.join(dir, name);
        writeFileSync(file, JSON.stringify({ database: `${name}-data/pinrecon.duckdb`, ...extra }), { mode: 0o644 });
        chmodSync(file, 0o644);
        return file;
      };
      const shared = configOf({ analysts: { group: 'nogroup' } }, 'shared.json');
      const unshared = configOf({}, 'private.json');
      for (const config of [shared, unshared])
        expect((await runCommand(['ledger', 'import', ledger, '--config', config], { cwd: dir })).code).toBe(0);
      // The analyst: another user (nobody), in the group (nogroup), with no home.
      const asAnalyst = (config: string) =>
        runCli(['query', 'select count(*) as lines from ledger', '--format', 'csv', '--config', config], {
          cwd: dir,
          env: { HOME: '/nonexistent' },
          as: { uid: 65534, gid: 65534 },
        });
      const reads = await asAnalyst(shared);
      expect(reads.code, reads.stderr).toBe(0);
      expect(reads.stdout).toBe('lines\n1\n');
      expect(mode(path.join(dir, 'shared.json-data'))).toBe(0o710);
      const refused = await asAnalyst(unshared);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('is not readable by this account');
      expect(refused.stderr).toContain('setting analysts.group');
    },
  );

  it('refuses a database that is not a DuckDB file without touching it or the key beside it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-modes-'));
    const foreign = path.join(dir, 'notes.db');
    writeFileSync(foreign, 'SQLite format 3\0 someone else', { mode: 0o644 });
    chmodSync(foreign, 0o644);
    const key = path.join(dir, 'pinrecon.key');
    writeFileSync(key, 'their key', { mode: 0o644 });
    chmodSync(key, 0o644);
    const config = path.join(dir, 'pinrecon.config.json');
    writeFileSync(config, JSON.stringify({ database: 'notes.db' }));
    const result = await runCommand(['query', 'select 1', '--config', config], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`database: ${foreign} is not a DuckDB file`);
    expect([mode(foreign), mode(key)]).toEqual([0o644, 0o644]);
    expect(readFileSync(foreign, 'utf8')).toBe('SQLite format 3\0 someone else');
    expect(readFileSync(key, 'utf8')).toBe('their key');
  });

  it('reads a linked ledger only with ledger.followSymlinks, and never quotes the file it points at', async () => {
    const { dir, config } = setup();
    const privateFile = path.join(dir, 'private.txt');
    writeFileSync(privateFile, 'SECRET-FIRST-LINE,of,a,private,file\n');
    const link = path.join(dir, 'ledger-link.csv');
    symlinkSync(privateFile, link);
    const refused = await runCommand(['ledger', 'import', link, '--config', config], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`The ledger file ${link} is a symbolic link`);
    expect(refused.stderr + refused.stdout).not.toContain('SECRET-FIRST-LINE');

    const real = path.join(dir, 'export.csv');
    writeFileSync(real, ledgerText);
    const followed = setup({ ledger: { followSymlinks: true } });
    const linked = path.join(followed.dir, 'linked.csv');
    symlinkSync(real, linked);
    const read = await runCommand(['ledger', 'import', linked, '--config', followed.config], { cwd: followed.dir });
    expect(read.code, read.stderr).toBe(0);

    // Followed on purpose to a file that is no ledger: refused without quoting its first line, on the console
    // or in pipeline_runs.error (which the snapshot shows analysts).
    const wrong = path.join(followed.dir, 'wrong.csv');
    symlinkSync(privateFile, wrong);
    const refusedContent = await runCommand(['ledger', 'import', wrong, '--config', followed.config], {
      cwd: followed.dir,
    });
    expect(refusedContent.code).toBe(2);
    expect(refusedContent.stderr).toContain('no column for partner_reference');
    expect(refusedContent.stderr + refusedContent.stdout).not.toContain('SECRET-FIRST-LINE');
    const runs = await runCommand(
      ['query', "select coalesce(string_agg(error, ' | '), '') as errors from pipeline_runs", '--format', 'csv'],
      { cwd: followed.dir, env: { PINRECON_CONFIG: followed.config } },
    );
    expect(runs.code, runs.stderr).toBe(0);
    expect(runs.stdout).not.toContain('SECRET-FIRST-LINE');
  });

  it('removes the temporaries a killed run left, and only those', async () => {
    const { dir, config, ledger } = setup();
    expect((await runCommand(['ledger', 'import', ledger, '--config', config], { cwd: dir })).code).toBe(0);
    const dead = deadPid();
    const reports = path.join(dir, 'reports');
    mkdirSync(reports, { recursive: true });
    const leftovers = [
      path.join(reports, `pinrecon-2026-01.xlsx.tmp-${dead}`),
      path.join(reports, `pinrecon-2026-01.eml.tmp-${dead}`),
      path.join(dir, 'data', `pinrecon.snapshot.duckdb.tmp-${dead}`),
    ];
    // A live process's temporary (this test's), and a file that is not pinrecon's: kept.
    const kept = [
      path.join(reports, `pinrecon-2026-02.xlsx.tmp-${process.pid}`),
      path.join(reports, `budget.xlsx.tmp-${dead}`),
    ];
    for (const file of [...leftovers, ...kept]) writeFileSync(file, 'half written');
    // Spawned: in this process the test's temporary would be the command's own, not another live process's.
    const result = await runCli(['query', 'select 1', '--config', config], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    for (const file of leftovers) {
      expect(existsSync(file), file).toBe(false);
      expect(result.stderr).toContain(`removed ${file}`);
    }
    for (const file of kept) expect(existsSync(file), file).toBe(true);
  });
});
