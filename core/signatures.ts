/**
 * People proven by keys (issue 28): Ed25519 key pairs made and read with node:crypto, the fingerprint an auditor
 * compares out of band, and the one rule for comparing typed names when no keys are configured. An act's row is
 * signed over its canonical bytes (which hold the previous row's hash), so a signature also seals the order.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';

/** A person's key as the config's `people` entry and the signed rows name it. */
export interface PublicIdentity {
  /** SPKI PEM. */
  publicKeyPem: string;
  /** Lowercase hex SHA-256 of the public key's DER (SPKI) bytes: what `signer_key_sha256` holds. */
  fingerprint: string;
}

export interface Identity extends PublicIdentity {
  privateKey: KeyObject;
}

/** A new Ed25519 key pair: the private key as PKCS#8 PEM (encrypted with `passphrase` when given) and the public. */
export function createKeyPair(passphrase?: string): { privatePem: string; publicPem: string; fingerprint: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privatePem = privateKey.export(
    passphrase ? { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase } : { type: 'pkcs8', format: 'pem' },
  ) as string;
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  return { privatePem, publicPem, fingerprint: keyFingerprint(publicKey) };
}

/** The SHA-256 (hex) of a public key's SPKI DER bytes; accepts a PEM text or a KeyObject. */
export function keyFingerprint(publicKey: string | KeyObject): string {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** A PEM public key in one canonical text (so two spellings of the same key compare equal). */
export function canonicalPublicKeyPem(publicKey: string | KeyObject): string {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  return key.export({ type: 'spki', format: 'pem' }) as string;
}

/** Reads a private key file (PKCS#8 PEM, encrypted or not); throws a plain Error naming what is wrong. */
export function identityFromPrivatePem(pem: string, passphrase?: string): Identity {
  const privateKey = createPrivateKey(
    passphrase ? { key: pem, format: 'pem', passphrase } : { key: pem, format: 'pem' },
  );
  if (privateKey.asymmetricKeyType !== 'ed25519') {
    throw new Error(`the key is ${privateKey.asymmetricKeyType ?? 'of an unknown type'}, not Ed25519`);
  }
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKeyPem: canonicalPublicKeyPem(publicKey), fingerprint: keyFingerprint(publicKey) };
}

/** Ed25519 signature (base64) of the UTF-8 bytes of `canonical`. */
export function signCanonical(privateKey: KeyObject, canonical: string): string {
  return sign(null, Buffer.from(canonical, 'utf8'), privateKey).toString('base64');
}

/** Whether `signature` (base64) is an Ed25519 signature of `canonical` by `publicKey` (PEM or KeyObject). */
export function verifyCanonical(publicKey: string | KeyObject, canonical: string, signature: string): boolean {
  try {
    const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
    return verify(null, Buffer.from(canonical, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** Lowercase hex SHA-256 of a text's UTF-8 bytes. */
export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The one comparison of typed names (unattested mode): Unicode NFKC, case folded, every run of white space
 * (including NBSP and other Unicode spaces) one space, trimmed — so "Ana  Lima", "ana lima" and "Ａｎａ Lima"
 * are one person.
 */
export function normalisedName(name: string): string {
  return name.normalize('NFKC').toLocaleLowerCase('und').replace(/\s+/gu, ' ').trim();
}

/** Whether two typed names name the same person under `normalisedName`. */
export function sameName(a: string | null | undefined, b: string | null | undefined): boolean {
  if (a == null || b == null) return false;
  return normalisedName(a) === normalisedName(b);
}

/** What every unattested sign-off, report, email and verify says (issue 28: "in plain words"). */
export const unattestedNotice = 'names typed, not attested: no keys are configured, so anyone could have typed them';
