/**
 * The review page with people configured (issues 28 and 32), in Chromium: `serve` needs a registered key (exit 2
 * without one, or with a key no person holds), acts as that key's person, and signs what it records exactly as the
 * commands do — a decision row signed with the person's key, which `verify` checks. An approval asked of a person
 * without the approver role is refused in the page with the reason; the approver's own page records it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyPair } from '../../core/signatures.js';
import { withWarehouse } from '../../core/warehouse.js';
import { runCli } from '../support/cli.js';
import { runCommand } from '../support/cli-in-process.js';
import { reconcileStep } from '../support/commands.js';
import { configSchema } from '../../config/schema.js';
import { asOf, fillFindings, period, type PeriodFindings } from '../support/decisions.js';
import { openFixture, type Fixture } from '../support/reconcile.js';
import { launchBrowser, noChromium, startServe } from '../support/review-browser.js';

const env = { CI: 'true', PINRECON_SMTP_URL: '' };
/** serve, spawned: it runs until signalled, and its refusals are its wiring. */
const pinrecon = (args: string[], cwd: string) => runCli(args, { cwd, env });
/**
 * verify and actions plan, the subject's checks and setup, in this process (issue 27): their wiring is spawned in
 * test/cli/controls-seal.test.ts and test/cli/signed-routine.test.ts.
 */
const inProcess = (args: string[], cwd: string) => runCommand(args, { cwd, env });

describe.skipIf(noChromium !== '')(`pinrecon serve with people${noChromium ? ` (skipped: ${noChromium})` : ''}`, () => {
  let f: Fixture;
  let found: PeriodFindings;
  let cwd: string;
  let browser: Browser;
  const ana = createKeyPair();
  const bruno = createKeyPair();
  const stranger = createKeyPair();
  const key = (name: string) => path.join(cwd, `${name}.pem`);

  beforeAll(async () => {
    f = await openFixture();
    found = await fillFindings(f);
    f.warehouse.close();
    cwd = f.dir;
    for (const [name, pair] of [
      ['ana', ana],
      ['bruno', bruno],
      ['stranger', stranger],
    ] as const)
      writeFileSync(key(name), pair.privatePem, { mode: 0o600 });
    const fileConfig = {
      timezone: f.config.timezone,
      database: 'pinrecon.duckdb',
      reconciliation: { costTolerance: 0.01, unredeemedAfterDays: 3, lookupMissing: false },
      actions: { approvalLimit: { BRL: 1000 } },
      people: [
        { name: 'Ana Lima', publicKey: ana.publicPem, roles: ['preparer'] },
        { name: 'Bruno Costa', publicKey: bruno.publicPem, roles: ['approver'] },
      ],
    };
    writeFileSync(path.join(cwd, 'pinrecon.config.json'), JSON.stringify(fileConfig));
    // Reconciled as setup, in this process (test/support/commands.ts, issue 27): the CLI is spawned for serve.
    await reconcileStep(configSchema.parse({ ...fileConfig, database: path.join(cwd, 'pinrecon.duckdb') }), {
      period,
      asOf,
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await f?.cleanup();
  });

  it('refuses to start without a registered key (exit 2)', async () => {
    const without = await pinrecon(['serve', '--port', '0'], cwd);
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('needs --identity FILE');
    const unknown = await pinrecon(['serve', '--port', '0', '--identity', key('stranger')], cwd);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('is not registered');
    // The same resolver as every act: a --by naming another person than the key's stops serve, not each act later.
    const other = await pinrecon(['serve', '--port', '0', '--identity', key('ana'), '--by', 'Bruno Costa'], cwd);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is not the person of');
  });

  it("acts as the key's person and signs the decision as findings decide does; verify checks it", async () => {
    const serving = await startServe(cwd, ['--identity', key('ana')]);
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(serving.url);
      expect(await page.locator('header').textContent()).toContain('acting as Ana Lima');
      const id = await withWarehouse(f.config.database, { readOnly: true }, async (w) => {
        const row = await w.one<{ finding_id: string }>(
          'SELECT finding_id FROM recon_exceptions WHERE partner_reference = $1',
          [found.costBreak.partner_reference],
        );
        return row!.finding_id;
      });
      await page.goto(`${serving.origin}/findings/${id}`);
      const form = page.getByRole('form', { name: 'Decide this finding' });
      await form.getByLabel('Decision').selectOption('write_off');
      await form.getByLabel('Note').fill('below the claim threshold');
      await form.getByRole('button', { name: 'Record decision' }).click();
      await page.waitForURL(/\/findings\/decide$/);
      expect(await page.locator('body').textContent()).toContain('recorded 1 decision(s)');
      // The history names the key that signed the row.
      await page.locator('#back').click();
      await page.waitForURL(/\/findings\/[0-9a-f]+$/);
      expect(await page.locator('table', { hasText: 'History' }).textContent()).toContain(ana.fingerprint);
      await page.close();
    } finally {
      expect(await serving.stop()).toBe(0);
    }
    const row = await withWarehouse(f.config.database, { readOnly: true }, (w) =>
      w.one<{ decided_by: string; signer: string; signature: string | null }>(
        `SELECT decided_by, signer_key_sha256 AS signer, signature FROM recon_decisions WHERE superseded_at IS NULL`,
      ),
    );
    expect(row).toMatchObject({ decided_by: 'Ana Lima', signer: ana.fingerprint });
    expect(row!.signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const verified = await inProcess(['verify', '--period', period], cwd);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  });

  it('refuses an approval to a person without the approver role, and records the approver’s', async () => {
    const planned = await inProcess(['actions', 'plan', '--period', period, '--identity', key('ana')], cwd);
    expect(planned.code, planned.stderr).toBe(0);
    const approveAs = async (name: string) => {
      const serving = await startServe(cwd, ['--identity', key(name)]);
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        await page.goto(serving.url.replace('/?', `/actions?period=${period}&`));
        await page.locator('table input[name=id]').first().check();
        await page.getByRole('button', { name: 'Approve the selected actions' }).click();
        await page.waitForURL(/\/actions\/approve$/);
        const text = await page.locator('main').textContent();
        await page.close();
        return text ?? '';
      } finally {
        expect(await serving.stop()).toBe(0);
      }
    };
    const refused = await approveAs('ana');
    expect(refused).toContain('Refused');
    expect(refused).toContain('Ana Lima may not approve actions: it needs the approver role');
    expect(await approveAs('bruno')).toContain('approved 1 action(s)');
    const action = await withWarehouse(f.config.database, { readOnly: true }, (w) =>
      w.one<{ status: string; approved_by: string }>('SELECT status, approved_by FROM recon_actions'),
    );
    expect(action).toEqual({ status: 'approved', approved_by: 'Bruno Costa' });
  });
});
