/**
 * The review page (issue 32) in a real Chromium: `pinrecon serve` started through the built CLI, its printed
 * address opened, the overview and findings read, a filter applied, one finding decided and several in bulk (each
 * landing in the database exactly as `findings decide` records it, its source `serve`), a suggested match confirmed,
 * an approval refused to the maker and recorded for a second person, every page and `.json` twin crawled for a full
 * PIN, a reconcile started meanwhile finishing, a job holding the file said on the page, a signed period read-only,
 * a request without the token refused and a non-loopback --host refused (exit 2). Screenshots of the pages are
 * saved under the test's temporary folder (or PINRECON_REVIEW_SHOTS) for a person to look at.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotPath, Warehouse, withWarehouse } from '../../core/warehouse.js';
import { runCli, startCli } from '../support/cli.js';
import { closeStep, planStep, reconcileStep } from '../support/commands.js';
import type { Config } from '../../config/schema.js';
import { asOf, fillFindings, period, type PeriodFindings } from '../support/decisions.js';
import { insertLedger, insertSales, ledgerFor, openFixture, sale, type Fixture } from '../support/reconcile.js';
import { launchBrowser, noChromium, startServe, type Serving } from '../support/review-browser.js';

/** The status of a GET sent with another Host header (fetch may not set one). */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once('error', reject);
  });
}

const cliEnv = { CI: 'true', PINRECON_SMTP_URL: '' };
const pinrecon = (args: string[], cwd: string) => runCli(args, { cwd, env: cliEnv });

describe.skipIf(noChromium !== '')(`pinrecon serve in Chromium${noChromium ? ` (skipped: ${noChromium})` : ''}`, () => {
  let f: Fixture;
  /** The config the CLI reads, for the setup steps run in this process. */
  let config: Config;
  let found: PeriodFindings;
  let cwd: string;
  let shots: string;
  let serving: Serving;
  let browser: Browser;
  let page: Page;

  const idOf = (reference: string | null) =>
    withWarehouse(
      f.config.database,
      { readOnly: true },
      async (w) =>
        (await w.one<{ finding_id: string }>('SELECT finding_id FROM recon_exceptions WHERE partner_reference = $1', [
          reference,
        ]))!.finding_id,
    );
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
    // A sale and a ledger line whose references differ by a zero: a suggested match to confirm (issue 29).
    const near = sale({ partner_reference: 'PO-2026-0009401', product_id: 11 });
    await insertSales(f.warehouse, [near]);
    await insertLedger(f.warehouse, [ledgerFor(near, { partner_reference: 'PO-2026-009401' })]);
    f.warehouse.close();
    cwd = f.dir;
    // Under the test's temporary folder (removed with it), or where PINRECON_REVIEW_SHOTS says, to look at them after.
    shots = process.env.PINRECON_REVIEW_SHOTS ?? path.join(cwd, 'screenshots');
    mkdirSync(shots, { recursive: true });
    writeFileSync(
      path.join(cwd, 'pinrecon.config.json'),
      JSON.stringify({
        timezone: f.config.timezone,
        database: 'pinrecon.duckdb',
        reports: { outDir: 'reports' },
        reconciliation: { costTolerance: 0.01, unredeemedAfterDays: 3, lookupMissing: false },
        actions: { approvalLimit: { BRL: 1000 } },
      }),
    );
    // Setup steps run in this process (test/support/commands.ts, issue 27): the CLI is spawned for serve.
    config = {
      ...f.config,
      reports: { ...f.config.reports, outDir: path.join(cwd, 'reports') },
      actions: { ...f.config.actions, approvalLimit: { BRL: 1000 } },
    };
    await reconcileStep(config, { period, asOf });
    serving = await startServe(cwd, ['--by', 'Ana Lima']);
    browser = await launchBrowser();
    // A context of its own (not newPage's), so a second page can share its cookies: the checker's, below.
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  });

  afterAll(async () => {
    await browser?.close();
    if (serving) expect(await serving.stop()).toBe(0);
    await f?.cleanup();
  });

  it('prints its loopback address with a token first, and refuses a request without the token', async () => {
    expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    for (const where of ['/overview', '/findings.json', '/assets/review.js']) {
      const refused = await fetch(`${serving.origin}${where}`, { redirect: 'manual' });
      expect(refused.status, where).toBe(401);
    }
    const wrong = await fetch(`${serving.origin}/?token=not-the-token`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    // Another name for this address (DNS rebinding) is refused even with the token.
    const token = new URL(serving.url).searchParams.get('token')!;
    expect(await statusWithHost(`${serving.origin}/overview?token=${token}`, 'attacker.example:80')).toBe(403);
  });

  it('refuses a form posted without its CSRF token, cookie or not', async () => {
    const token = new URL(serving.url).searchParams.get('token')!;
    const cookie = `pinrecon_review_${new URL(serving.origin).port}=${token}`;
    const posted = await fetch(`${serving.origin}/findings/decide`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ id: 'x', decision: 'write_off', csrf: 'guessed' }),
      redirect: 'manual',
    });
    expect(posted.status).toBe(403);
    // A body past 1 MiB is refused as too large, not failed as an internal error.
    const huge = await fetch(`${serving.origin}/findings/decide`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `note=${'x'.repeat(1024 * 1024 + 1)}`,
      redirect: 'manual',
    });
    expect(huge.status).toBe(413);
  });

  it('opens the overview from the printed address, strict CSP, token traded for an HttpOnly cookie', async () => {
    const response = await page.goto(serving.url);
    expect(response!.status()).toBe(200);
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    const [cookie] = await page.context().cookies();
    const name = `pinrecon_review_${new URL(serving.origin).port}`;
    expect(cookie).toMatchObject({ name, httpOnly: true, sameSite: 'Strict' });
    await expect(page.locator('h1').textContent()).resolves.toBe(`Overview of ${period}`);
    expect(await page.locator('.verdict').textContent()).toMatch(/Verdict: /);
    await page.screenshot({ path: path.join(shots, 'overview.png'), fullPage: true });
    // From the keyboard: the first Tab reaches the skip link, which leads to the page's content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(new URL(page.url()).hash).toBe('#main');
    // Printed, the page drops its navigation and forms (the print stylesheet).
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('header nav').isVisible()).toBe(false);
    expect(await page.locator('h1').isVisible()).toBe(true);
    await page.emulateMedia({ media: 'screen' });
    expect(await page.locator('header nav').isVisible()).toBe(true);
  });

  it('filters the findings by type and searches by reference', async () => {
    await page.getByRole('link', { name: 'Findings', exact: true }).click();
    await page.waitForURL(/\/findings\?/);
    expect(await page.locator('h1').textContent()).toBe(`Findings of ${period}`);
    const rows = page.locator('#findings tbody tr');
    expect(await rows.count()).toBe(5);
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
      source: 'serve',
    });
    await page.locator('#back').click();
    await page.waitForURL(/\/findings\/[0-9a-f]+$/);
    const summary = await page.locator('dl.facts').textContent();
    expect(summary).toContain('write_off');
    // The PIN by its last 4 characters only, behind the mask.
    expect(summary).toContain(`PIN****${found.costBreak.key.slice(-4)}`);
    await page.screenshot({ path: path.join(shots, 'finding.png'), fullPage: true });
  });

  it('bulk-decides the undecided findings: filter, select all on the page, one decision for each', async () => {
    await page.goto(`${serving.origin}/findings?period=${period}&decision=none`);
    const rows = page.locator('#findings tbody tr');
    expect(await rows.count()).toBe(4);
    await page.getByLabel('Select all on this page').check();
    expect(await page.locator('#findings tbody input[name=id]:checked').count()).toBe(4);
    const form = page.getByRole('form', { name: 'Decide findings' });
    await form.getByLabel('Decision').selectOption('investigating');
    await form.getByLabel('Owner').fill('ops');
    await form.getByRole('button', { name: 'Record decision' }).click();
    await page.waitForURL(/\/findings\/decide$/);
    expect(await page.locator('body').textContent()).toContain('recorded 4 decision(s)');
    for (const reference of [found.missing.partner_reference, found.fixable.partner_reference])
      expect(await decisionOf(reference)).toMatchObject({
        decision: 'investigating',
        owner: 'ops',
        decided_by: 'Ana Lima',
      });
    await page.goto(`${serving.origin}/findings?period=${period}&decision=none`);
    expect(await rows.count()).toBe(0);

    // Every finding the filters choose (here one type, over all pages): exactly the ones the list counts.
    await page.goto(`${serving.origin}/findings?period=${period}&type=missing_in_ledger`);
    expect(await rows.count()).toBe(2);
    await form.getByLabel('Decision').selectOption('accepted');
    await form.getByLabel('Note').fill('sold by the provider as agreed');
    await form.getByLabel('Which').selectOption('filtered');
    await form.getByRole('button', { name: 'Record decision' }).click();
    await page.waitForURL(/\/findings\/decide$/);
    expect(await page.locator('body').textContent()).toContain('recorded 2 decision(s)');
    expect(await decisionOf(found.missing.partner_reference)).toMatchObject({ decision: 'accepted' });
    expect(await decisionOf(found.fixable.partner_reference)).toMatchObject({ decision: 'investigating' });
  });

  it('confirms a suggested match, recorded as matches confirm records it', async () => {
    await page.goto(`${serving.origin}/matches?period=${period}`);
    // A rejection needs its note, as matches reject does: refused in the page, nothing recorded.
    await page.getByLabel('Select PO-2026-009401').check();
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.waitForURL(/\/matches\/decide$/);
    expect(await page.locator('[role=alert]').textContent()).toContain('needs a note');
    await page.locator('#back').click();
    await page.waitForURL(/\/matches\?period=/);
    await page.getByLabel('Select PO-2026-009401').check();
    await page.getByRole('button', { name: 'Confirm match' }).click();
    await page.waitForURL(/\/matches\/decide$/);
    expect(await page.locator('body').textContent()).toContain('recorded 1 match decision(s) by Ana Lima');
    const row = await withWarehouse(f.config.database, { readOnly: true }, (w) =>
      w.one<{ decision: string; decided_by: string; source: string }>(
        `SELECT d.decision, d.decided_by, d.source FROM recon_decisions d JOIN recon_match_suggestions s
           ON s.suggestion_id = d.finding_id WHERE s.ledger_reference = 'PO-2026-009401' AND d.superseded_at IS NULL`,
      ),
    );
    expect(row).toEqual({ decision: 'match_confirmed', decided_by: 'Ana Lima', source: 'serve' });
    await page.goto(`${serving.origin}/matches?period=${period}`);
    await page.screenshot({ path: path.join(shots, 'matches.png'), fullPage: true });
  });

  it('refuses an expected clear-by date the calendar does not have, as findings decide does', async () => {
    await page.goto(`${serving.origin}/findings?period=${period}`);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const id = await idOf(found.fixable.partner_reference);
    const posted = await page.context().request.post(`${serving.origin}/findings/decide`, {
      form: { csrf, id, scope: 'selected', decision: 'timing', expected_clear_by: '2099-02-30' },
    });
    expect(posted.status()).toBe(409);
    expect(await posted.text()).toContain('Expected clear by must be a date');
    expect(await decisionOf(found.fixable.partner_reference)).toMatchObject({ decision: 'investigating' });
  });

  it('refuses the approval to the maker and records it for a second person (maker-checker)', async () => {
    // Planned (`actions plan`, in this process) while the page runs: the page does not hold the database between
    // requests.
    await planStep(config, period, 'Ana Lima');
    await page.goto(`${serving.origin}/actions?period=${period}`);
    const boxes = page.locator('#approve-actions, table').locator('input[name=id]');
    expect(await boxes.count()).toBe(1);
    await boxes.first().check();
    await page.getByRole('button', { name: 'Approve the selected actions' }).click();
    await page.waitForURL(/\/actions\/approve$/);
    const refusal = await page.locator('[role=alert]').textContent();
    expect(refusal).toContain('Refused');
    expect(refusal).toContain('Ana Lima decided its finding');
    await page.screenshot({ path: path.join(shots, 'approval-refused.png'), fullPage: true });
    await page.locator('#back').click();
    await page.waitForURL(/\/actions\?period=/);
    expect(await page.locator('table input[name=id]').count()).toBe(1);

    const checker = await startServe(cwd, ['--by', 'Bruno Costa']);
    try {
      // In the maker's own browser: each page keeps its own cookie (named by its port), so both stay signed in.
      const second = await page.context().newPage();
      await second.goto(checker.url.replace('/?', `/actions?period=${period}&`));
      await second.locator('table input[name=id]').first().check();
      await second.getByRole('button', { name: 'Approve the selected actions' }).click();
      await second.waitForURL(/\/actions\/approve$/);
      expect(await second.locator('[role=status]').textContent()).toContain('approved 1 action(s)');
      await second.close();
      expect((await page.goto(`${serving.origin}/actions?period=${period}`))!.status()).toBe(200);
    } finally {
      // Ctrl-C stops it cleanly too.
      expect(await checker.stop('SIGINT')).toBe(0);
    }
    const action = await withWarehouse(f.config.database, { readOnly: true }, (w) =>
      w.one<{ status: string; approved_by: string }>('SELECT status, approved_by FROM recon_actions'),
    );
    expect(action).toEqual({ status: 'approved', approved_by: 'Bruno Costa' });
  });

  it('shows no full PIN in any page or .json twin (every link crawled)', async () => {
    const request = page.context().request;
    const seen = new Set<string>();
    const queue = [`/overview?period=${period}`];
    while (queue.length > 0 && seen.size < 300) {
      const next = queue.shift()!;
      if (seen.has(next)) continue;
      seen.add(next);
      const response = await request.get(`${serving.origin}${next}`);
      expect(response.status(), next).toBeLessThan(400);
      const body = await response.text();
      expect(body, next).not.toMatch(/KEY-SECRET-\d+/);
      for (const match of body.matchAll(/href="(\/[^"#]*)"/g)) {
        const link = match[1]!.replaceAll('&amp;', '&');
        if (!link.startsWith('/assets/')) queue.push(link);
      }
    }
    expect(seen.size).toBeGreaterThan(10);
    expect([...seen].filter((u) => u.includes('.json')).length).toBeGreaterThan(3);
    expect([...seen].some((u) => /^\/findings\/[0-9a-f]+\.json$/.test(u))).toBe(true);
    const one = await request.get(`${serving.origin}/findings/${await idOf(found.costBreak.partner_reference)}.json`);
    expect(JSON.stringify(await one.json())).toContain('****');
  });

  it('lets a reconcile started while the page is open finish, the page answering all along', async () => {
    // One request at each line the job prints (its progress, from before it opens the file to its end), one after
    // another: paced by the job's own events. A loop asking back to back kept the file open nearly all the time, so
    // whether the job's lock polls ever found it free depended on how fast the machine was.
    const reconcile = startCli(['reconcile', '--period', period, '--as-of', asOf], { cwd, env: cliEnv });
    let answered = 0;
    let asking = Promise.resolve();
    reconcile.child.stderr.on('data', () => {
      asking = asking.then(async () => {
        const response = await page.context().request.get(`${serving.origin}/overview.json?period=${period}`);
        if (response.status() === 200) answered++;
      });
    });
    const result = await reconcile.done;
    await asking;
    expect(result.code, result.stderr).toBe(0);
    expect(answered).toBeGreaterThan(0);
  });

  it('says when a job holds the database, and shows the last published snapshot meanwhile', async () => {
    // This process holds the file as a running job would (writing), so the page cannot open it.
    const job = await Warehouse.open(f.config.database, { lockWaitSeconds: 0 });
    try {
      const response = await page.context().request.get(`${serving.origin}/overview.json?period=${period}`);
      expect(response.status()).toBe(200);
      expect((await response.json()).jobRunning).toBe(true);
      await page.goto(`${serving.origin}/overview?period=${period}`);
      expect(await page.locator('.banner.warn').first().textContent()).toContain('A job is running');
      expect(await page.locator('footer').textContent()).toContain('snapshot');
    } finally {
      job.close();
    }
    const after = await page.context().request.get(`${serving.origin}/overview.json?period=${period}`);
    expect((await after.json()).jobRunning).toBe(false);
  });

  it('shows a signed period read-only with the reason, and refuses a decision posted anyway', async () => {
    await closeStep(config, { period, by: 'Bruno Costa', allowUndecided: true, allowOpen: true });
    await page.goto(`${serving.origin}/findings?period=${period}`);
    expect(await page.locator('.banner.info').textContent()).toContain('signed off by Bruno Costa');
    expect(await page.getByRole('button', { name: 'Record decision' }).isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(shots, 'signed-read-only.png'), fullPage: true });
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const id = await idOf(found.fixable.partner_reference);
    const posted = await page.context().request.post(`${serving.origin}/findings/decide`, {
      form: { csrf, id, scope: 'selected', decision: 'write_off', note: 'after sign-off' },
    });
    expect(posted.status()).toBe(409);
    expect(await posted.text()).toContain('signed off');
    expect(await decisionOf(found.fixable.partner_reference)).toMatchObject({ decision: 'investigating' });
    // The refused act's run is in the analysts' snapshot too, as a refused command's is (issue 31).
    const lastRun = await withWarehouse(snapshotPath(f.config.database), { readOnly: true }, (w) =>
      w.one<{ command: string; status: string }>(
        'SELECT command, status FROM pipeline_runs ORDER BY started_at DESC LIMIT 1',
      ),
    );
    expect(lastRun).toEqual({ command: 'findings decide', status: 'failed' });
    const noToken = await fetch(`${serving.origin}/findings/decide`, {
      method: 'POST',
      body: new URLSearchParams({ csrf, id, decision: 'write_off' }),
      redirect: 'manual',
    });
    expect(noToken.status).toBe(401);
  });

  it('says why a period cannot be shown (never reconciled), with what to do, in the page and its twin', async () => {
    const page2 = await page.context().request.get(`${serving.origin}/overview?period=2019-01`);
    expect(page2.status()).toBe(409);
    expect(await page2.text()).toContain('2019-01');
    const twin = await page.context().request.get(`${serving.origin}/overview.json?period=2019-01`);
    expect(twin.status()).toBe(409);
    expect((await twin.json()).ok).toBe(false);
  });

  it('listens on loopback only: another --host is refused with exit 2', async () => {
    const refused = await pinrecon(['serve', '--host', '0.0.0.0', '--port', '0'], cwd);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not a loopback address');
  });
});
