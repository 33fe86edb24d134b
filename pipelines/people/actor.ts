/**
 * Who acts (issue 28): the one resolver every act uses — `findings decide|import`, `matches confirm|reject`,
 * `actions plan|approve`, `close`, `reopen`. With `people` configured the actor is the person whose registered
 * key `--identity FILE` (env PINRECON_IDENTITY) holds, and the act is signed; without, the typed `--by` (default
 * the OS user), compared with `sameName` everywhere and said to be not attested; `--identity` is then refused.
 */
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { Config, Person, PersonRole } from '../../config/schema.js';
import { JobError, UsageError } from '../../core/errors.js';
import { identityFromPrivatePem, keyFingerprint, sameName, type Identity } from '../../core/signatures.js';

/** The person behind an act, and the key that signs it when people are configured. */
export interface Actor {
  /** The name every row records: the person's configured name, or the typed one. */
  name: string;
  /** True when proven by a registered key (people configured). */
  attested: boolean;
  /** The key that signs the act's rows (null when unattested). */
  signer: Identity | null;
  /** The person's roles (null when unattested: any typed name may act). */
  roles: PersonRole[] | null;
}

/** How the command names its actor: `--by`, `--identity`, and the environment (PINRECON_IDENTITY[_PASSPHRASE]). */
export interface ActorOptions {
  by?: string;
  identity?: string;
  env?: NodeJS.ProcessEnv;
}

/** The OS user name, for `--by` left out (unattested mode). */
export function defaultActorName(): string {
  try {
    return userInfo().username || process.env.USER || 'unknown';
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
}

/** An actor from a typed name alone (unattested): what tests and callers without a config use. */
export function typedActor(by?: string): Actor {
  const name = (by ?? defaultActorName()).trim();
  return { name, attested: false, signer: null, roles: null };
}

/** Whether `config` names people, so that every act must be proven by a key. */
export function peopleConfigured(config: Pick<Config, 'people'>): boolean {
  return config.people.length > 0;
}

/**
 * The actor of an act needing `role` (e.g. `findings decide` needs preparer): `identifyActor`, then a person
 * without the role is refused (JobError, exit 1).
 */
export function resolveActor(
  config: Pick<Config, 'people'>,
  options: ActorOptions,
  role: PersonRole,
  act: string,
): Actor {
  const actor = identifyActor(config, options, act);
  if (actor.roles && !actor.roles.includes(role)) {
    throw new JobError(
      `${actor.name} may not ${act}: it needs the ${role} role, and ${actor.name} holds ${actor.roles.join(', ')}.`,
      `Have a person with the ${role} role do it, or add the role to ${actor.name}'s entry of people in the config.`,
    );
  }
  return actor;
}

/**
 * Who acts, before any role is asked (serve names its person at start; each act then asks its role). Usage
 * errors (exit 2): no identity with people configured, an unreadable key file, a key no person holds, a `--by`
 * naming another person, an `--identity` where no people are configured.
 */
export function identifyActor(config: Pick<Config, 'people'>, options: ActorOptions, act: string): Actor {
  const env = options.env ?? process.env;
  if (options.by !== undefined && options.by.trim() === '') throw new UsageError('--by must name a person.');
  if (!peopleConfigured(config)) {
    // A key given where no person holds one would sign nothing: refused, not ignored, so nobody believes the act
    // attested (PINRECON_IDENTITY, set for the shell rather than for this act, is left to the people config).
    if (options.identity !== undefined) {
      throw new UsageError(
        `--identity ${options.identity} was given, but the config names no people: no key can prove who acts, ` +
          'so the act would be recorded unsigned under a typed name. Add the person to people in the config ' +
          '(pinrecon identity create prints the entry), or leave --identity out and give --by NAME.',
      );
    }
    return typedActor(options.by);
  }
  const file = options.identity ?? env.PINRECON_IDENTITY;
  if (!file) {
    throw new UsageError(
      `${act} needs --identity FILE (or PINRECON_IDENTITY): the config names people, so every act is proven by ` +
        `the private key of one of them (pinrecon identity create --name NAME --out FILE makes one).`,
    );
  }
  const identity = readIdentity(file, env.PINRECON_IDENTITY_PASSPHRASE);
  const person = personOfKey(config.people, identity.fingerprint);
  if (!person) {
    throw new UsageError(
      `${file}: its key (fingerprint ${identity.fingerprint}) is not registered: no entry of people holds it.`,
    );
  }
  if (options.by !== undefined && !sameName(options.by, person.name)) {
    throw new UsageError(
      `--by "${options.by}" is not the person of ${file} ("${person.name}"): the key names who acts; ` +
        `leave --by out or give that name.`,
    );
  }
  return { name: person.name, attested: true, signer: identity, roles: [...person.roles] };
}

/** The configured person holding the key of `fingerprint`, if any. */
export function personOfKey(people: Person[], fingerprint: string): Person | undefined {
  return people.find((p) => keyFingerprint(p.publicKey) === fingerprint);
}

/** Reads a private key file (PKCS#8 PEM, encrypted with `passphrase` when it is); a usage error names what failed. */
export function readIdentity(file: string, passphrase: string | undefined): Identity {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--identity ${file}: cannot read it (${code ?? 'unreadable'}).`);
  }
  const encrypted = pem.includes('ENCRYPTED PRIVATE KEY');
  if (encrypted && !passphrase) {
    throw new UsageError(`--identity ${file} is encrypted: set PINRECON_IDENTITY_PASSPHRASE to its passphrase.`);
  }
  try {
    return identityFromPrivatePem(pem, encrypted ? passphrase : undefined);
  } catch (error) {
    const why = encrypted ? 'a wrong passphrase, or not a private key' : (error as Error).message;
    throw new UsageError(`--identity ${file} is not a usable Ed25519 private key (${why}).`);
  }
}
