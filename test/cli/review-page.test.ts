/**
 * The review page (issue 32) in a real Chromium: `pinrecon serve` started through the built CLI, its printed
 * address opened, the overview and findings read, a filter applied, one finding decided and several in bulk — each
 * landing in the database exactly as `findings decide` records it — and a request without the token refused.
 * Screenshots of the pages are saved under the test's temporary folder for a person to look at.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withWarehouse } from '../../core/warehouse.js';
import { runCli } from '../support/cli.js';
import { asOf, fillFindings, period, type PeriodFindings } from '../support/decisions.js';
import { openFixture, type Fixture } from '../support/reconcile.js';
import { launchBrowser, noChromium, startServe, type Serving } from '../support/review-browser.js';

const pinrecon = (args: string[], cwd: string) => runCli(args, { cwd, env: { CI: 'true', PINRECON_SMTP_URL: '' } });

describe.skipIf(noChromium !== '')(`pinrecon serve in Chromium${noChromium ? ` (skipped: ${noChromium})` : ''}`, () => {
  let f: Fixture;
  let found: PeriodFindings;
  let cwd: string;
  let shots: string;
  let serving: Serving;
  let browser: Browser;
  let page: Page;

  const decisionOf = (reference: string | null) =>
    withWarehouse(f.config.database, { readOnly: true }, (w) =>
      w.one<{ decision: string | null; owner: string | null; decided_by: string | null; source: string | null }>(
        `SELECT e.decision, e.owner, d.decided_by, d.source FROM recon_exceptions e
         LEFT JOIN recon_decisions d ON d.finding_id = e.finding_id AND d.superseded_at IS NULL
         WHERE e.partner_reference = $1 AND e.period = $2`,
        [reference, period],
      ),
    );

  beforeAll(async () => {
    f = await openFixture();
    found = await fillFindings(f);
    f.warehouse.close();
    cwd = f.dir;
    shots = path.join(cwd, 'screenshots');
    mkdirSync(shots);
    writeFileSync(
      path.join(cwd, 'pinrecon.config.json'),
      JSON.stringify({
        timezone: f.config.timezone,
        database: 'pinrecon.duckdb',
        reports: { outDir: 'reports' },
        reconciliation: { costTolerance: 0.01, unredeemedAfterDays: 3, lookupMissing: false },
      }),
    );
    const reconciled = await pinrecon(['reconcile', '--period', period, '--as-of', asOf], cwd);
    expect(reconciled.code, reconciled.stderr).toBe(0);
    serving = await startServe(cwd, ['--by', 'Ana Lima']);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (serving) expect(await serving.stop()).toBe(0);
    f?.cleanup();
  });

  it('prints its loopback address with a token first, and refuses a request without the token', async () => {
    expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    for (const where of ['/overview', '/findings.json', '/assets/review.js']) {
      const refused = await fetch(`${serving.origin}${where}`, { redirect: 'manual' });
      expect(refused.status, where).toBe(401);
    }
    const wrong = await fetch(`${serving.origin}/?token=not-the-token`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
  });

  it('opens the overview from the printed address, strict CSP, token traded for an HttpOnly cookie', async () => {
    const response = await page.goto(serving.url);
    expect(response!.status()).toBe(200);
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: 'pinrecon_review', httpOnly: true, sameSite: 'Strict' });
    await expect(page.locator('h1').textContent()).resolves.toBe(`Overview of ${period}`);
    expect(await page.locator('.verdict').textContent()).toMatch(/Verdict: /);
    await page.screenshot({ path: path.join(shots, 'overview.png'), fullPage: true });
  });

  it('filters the findings by type and searches by reference', async () => {
    await page.getByRole('link', { name: 'Findings', exact: true }).click();
    await page.waitForURL(/\/findings\?/);
    expect(await page.locator('h1').textContent()).toBe(`Findings of ${period}`);
    const rows = page.locator('#findings tbody tr');
    expect(await rows.count()).toBe(3);
    await page.getByLabel('Type').selectOption('cost_mismatch');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/type=cost_mismatch/);
    expect(await rows.count()).toBe(2);
    await page.getByLabel('Reference or transaction').fill(found.costBreak.partner_reference!);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/q=PO/);
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(found.costBreak.partner_reference);
    await page.screenshot({ path: path.join(shots, 'findings.png'), fullPage: true });
  });

  it('decides one finding from its page, recorded as findings decide records it', async () => {
    await page.locator('#findings tbody tr a').first().click();
    await page.waitForURL(/\/findings\/[0-9a-f]+$/);
    expect(await page.locator('h1').textContent()).toBe(`Finding ${found.costBreak.partner_reference}`);
    const form = page.getByRole('form', { name: 'Decide this finding' });
    await form.getByLabel('Decision').selectOption('write_off');
    await form.getByLabel('Note').fill('below the claim threshold');
    await form.getByLabel('Owner').fill('ana');
    await form.getByRole('button', { name: 'Record decision' }).click();
    await page.waitForURL(/\/findings\/decide$/);
    expect(await page.locator('body').textContent()).toContain('recorded 1 decision(s)');
    expect(await decisionOf(found.costBreak.partner_reference)).toEqual({
      decision: 'write_off',
      owner: 'ana',
      decided_by: 'Ana Lima',
      source: 'cli',
    });
    await page.locator('#back').click();
    await page.waitForURL(/\/findings\/[0-9a-f]+$/);
    expect(await page.locator('dl.facts').textContent()).toContain('write_off');
    await page.screenshot({ path: path.join(shots, 'finding.png'), fullPage: true });
  });
});
