/**
 * `pinrecon identity create` and the people config through the built CLI (issue 28): the key files and their
 * modes, never an overwrite, an encrypted key with a passphrase, a bad public key in the config naming
 * `people[i].publicKey` (exit 2), and acts refused with exit 2 without a key or with an `--identity` no people
 * config can prove, before any database is touched (the resolver's other refusals: test/pipelines/people/).
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { keyFingerprint } from '../../core/signatures.js';
import { createIdentity } from '../../pipelines/people/identity.js';
import { runCli } from '../support/cli.js';

const noIdentity = { PINRECON_IDENTITY: undefined, PINRECON_IDENTITY_PASSPHRASE: undefined };

test('identity create writes a 0600 private key and FILE.pub, prints the people entry, never overwrites', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-identity-'));
  const out = path.join(dir, 'ana.pem');
  const made = await runCli(
    ['identity', 'create', '--name', 'Ana Lima', '--out', out, '--role', 'preparer', 'signer'],
    {
      cwd: dir,
      env: noIdentity,
    },
  );
  expect(made.stderr).not.toMatch(/error/i);
  expect(made.code).toBe(0);
  expect(statSync(out).mode & 0o777).toBe(0o600);
  expect(readFileSync(out, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  const publicPem = readFileSync(`${out}.pub`, 'utf8');
  expect(made.stdout).toContain(`fingerprint (SHA-256 of the public key): ${keyFingerprint(publicPem)}`);
  const entry = JSON.parse(made.stdout.slice(made.stdout.indexOf('{')));
  expect(entry).toEqual({ name: 'Ana Lima', publicKey: publicPem, roles: ['preparer', 'signer'] });

  const before = readFileSync(out, 'utf8');
  const again = await runCli(['identity', 'create', '--name', 'Mallory', '--out', out], { cwd: dir, env: noIdentity });
  expect(again.code).toBe(2);
  expect(again.stderr).toContain(`${out} exists: pinrecon never overwrites a key`);
  expect(readFileSync(out, 'utf8')).toBe(before);

  const locked = path.join(dir, 'bruno.pem');
  const encrypted = await runCli(['identity', 'create', '--name', 'Bruno', '--out', locked], {
    cwd: dir,
    env: { PINRECON_IDENTITY_PASSPHRASE: 'correct horse' },
  });
  expect(encrypted.code).toBe(0);
  expect(readFileSync(locked, 'utf8')).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----/);
});

test('people: a bad public key is a config error naming it; an act without a registered key exits 2', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-identity-'));
  const database = path.join(dir, 'pinrecon.duckdb');
  const bad = path.join(dir, 'bad.json');
  writeFileSync(
    bad,
    JSON.stringify({ database, people: [{ name: 'Ana', publicKey: 'not a key', roles: ['preparer'] }] }),
  );
  const refused = await runCli(['findings', 'list', '--period', '2024-03', '--config', bad], { env: noIdentity });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('people[0].publicKey is not a PEM public key');

  // The key made in-process: making one through the CLI is the first test's.
  const { publicFile } = createIdentity({ name: 'ana', out: path.join(dir, 'ana.pem') });
  const publicKey = readFileSync(publicFile, 'utf8');
  const config = path.join(dir, 'pinrecon.config.json');
  writeFileSync(config, JSON.stringify({ database, people: [{ name: 'Ana Lima', publicKey, roles: ['preparer'] }] }));
  const decide = (...extra: string[]) =>
    runCli(['findings', 'decide', 'f1', '--decision', 'investigating', '--config', config, ...extra], {
      env: noIdentity,
    });
  const missing = await decide();
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('needs --identity FILE (or PINRECON_IDENTITY)');
  // An unregistered key and a --by naming another person are refused by the same resolver, in-process:
  // test/pipelines/people/controls.test.ts ('people: the key proves the actor').
  // Without people, a key given is refused rather than ignored: the act would not be signed with it.
  const typed = path.join(dir, 'typed.json');
  writeFileSync(typed, JSON.stringify({ database }));
  const ignored = await runCli(
    ['findings', 'decide', 'f1', '--decision', 'investigating', '--config', typed, '--identity', `${dir}/ana.pem`],
    { env: noIdentity },
  );
  expect(ignored.code).toBe(2);
  expect(ignored.stderr).toContain('was given, but the config names no people');
  // Nothing was opened, let alone recorded.
  expect(existsSync(database)).toBe(false);
});
