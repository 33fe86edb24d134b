/**
 * The `people` section (issue 28): who may act, proven by an Ed25519 public key, and with which roles. With
 * people configured every act needs its person's key (pipelines/people/actor.ts); without, names are typed.
 */
import { createPublicKey } from 'node:crypto';
import { z } from 'zod';
import { keyFingerprint, normalisedName } from '../../core/signatures.js';

export const personRoles = ['preparer', 'approver', 'signer'] as const;
export type PersonRole = (typeof personRoles)[number];

/** Why a PEM text is no Ed25519 public key, or undefined. */
function publicKeyProblem(pem: string): string | undefined {
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') return `is a ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`;
    return undefined;
  } catch {
    return 'is not a PEM public key (paste the whole FILE.pub that `pinrecon identity create` wrote)';
  }
}

export const personSchema = z.strictObject({
  /** The person's name as every act records it. */
  name: z.string().trim().min(1),
  /** Their Ed25519 public key, SPKI PEM (`-----BEGIN PUBLIC KEY-----…`), as `pinrecon identity create` prints it. */
  publicKey: z.string().min(1),
  /** `preparer` decides and plans, `approver` approves actions, `signer` closes and reopens periods. */
  roles: z.array(z.enum(personRoles)).min(1),
});

export type Person = z.output<typeof personSchema>;

/**
 * People proven by keys. Empty (the default): names are typed with `--by` and every sign-off, report, email
 * and verify says they are not attested.
 * @default []
 */
export const peopleSchema = z
  .array(personSchema)
  .default([])
  .superRefine((people, context) => {
    const names = new Map<string, number>();
    const keys = new Map<string, number>();
    for (const [i, person] of people.entries()) {
      const problem = publicKeyProblem(person.publicKey);
      if (problem) {
        context.addIssue({ code: 'custom', path: [i, 'publicKey'], message: `people[${i}].publicKey ${problem}` });
        continue;
      }
      const fingerprint = keyFingerprint(person.publicKey);
      const sameKey = keys.get(fingerprint);
      if (sameKey !== undefined) {
        const message = `people[${i}].publicKey is also people[${sameKey}]'s: one key proves one person`;
        context.addIssue({ code: 'custom', path: [i, 'publicKey'], message });
      }
      keys.set(fingerprint, i);
      const name = normalisedName(person.name);
      const sameName = names.get(name);
      if (sameName !== undefined) {
        const message =
          `people[${i}].name names ` + `people[${sameName}] again (names are compared ignoring case and spaces)`;
        context.addIssue({ code: 'custom', path: [i, 'name'], message });
      }
      names.set(name, i);
    }
  });

export type PeopleConfig = z.output<typeof peopleSchema>;
