/**
 * `pinrecon identity create --name NAME --out FILE`: a person's Ed25519 key pair (issue 28) and the `people`
 * entry to add to the config; the fingerprint printed is what an auditor compares out of band.
 */
import type { Command } from 'commander';
import { personRoles, type PersonRole } from '../../config/schema.js';
import { createIdentity } from '../../pipelines/people/identity.js';
import { action, withGlobalOptions, type GlobalOptions } from '../context.js';
import { parseChoice } from '../options.js';

export interface CreateOptions extends GlobalOptions {
  name: string;
  out: string;
  role?: string[];
}

export interface IdentityCreateRequest {
  name: string;
  out: string;
  roles?: PersonRole[];
}

/** The command line of `identity create`, checked (issue 27: pure, tested in-process). */
export function parseIdentityCreate(options: CreateOptions): IdentityCreateRequest {
  for (const role of options.role ?? []) parseChoice(role, personRoles, '--role', `among ${personRoles.join(', ')}`);
  return { name: options.name, out: options.out, roles: options.role as PersonRole[] | undefined };
}

export function registerIdentity(program: Command): void {
  const identity = program.command('identity').description('people proven by keys: make a key pair for a person');
  withGlobalOptions(
    identity
      .command('create')
      .description('a new Ed25519 key pair: FILE (private, PKCS#8 PEM, mode 0600) and FILE.pub (public, SPKI PEM)')
      .requiredOption('--name <name>', 'the person the key is for, as the config will name them')
      .requiredOption('--out <file>', 'where to write the private key (the public key goes to FILE.pub)')
      .option('--role <role...>', `roles for the printed people entry: ${personRoles.join(', ')} (default preparer)`),
  )
    .addHelpText(
      'after',
      `
The private key is encrypted with PINRECON_IDENTITY_PASSPHRASE when it is set (then set it again whenever
the key is used). Existing files are never overwritten. Add the printed entry to "people" in the config;
from then on every act (findings decide|import, actions plan|approve, close, reopen) needs --identity FILE
(or PINRECON_IDENTITY) and is signed with it.

Example:
  pinrecon identity create --name "Ana Lima" --out ~/.pinrecon/ana.pem --role preparer signer`,
    )
    .action(
      action<CreateOptions, []>(async ({ output }, options) => {
        const request = parseIdentityCreate(options);
        const passphrase = process.env.PINRECON_IDENTITY_PASSPHRASE;
        const created = createIdentity(request, passphrase);
        output.result(
          [
            `wrote ${created.privateFile} (private key, mode ` +
              `0600${created.encrypted ? ', encrypted' : ', not encrypted'})` +
              ` and ${created.publicFile} (public key)`,
            `fingerprint (SHA-256 of the public key): ${created.fingerprint}`,
            'add this entry to "people" in the config:',
            JSON.stringify(created.person, null, 2),
          ].join('\n'),
        );
        output.document({ ok: true, ...created });
      }),
    );
}
