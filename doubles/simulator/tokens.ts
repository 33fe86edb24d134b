/**
 * The simulated service's authentication: credentials in, a token record out. Access tokens are real JWTs
 * (HS256, signed with a per-server random key, with `exp`); refresh tokens are opaque, single-use, and paired
 * with the access token they came with — an expired access token can still be refreshed with its refresh
 * token. `revokeAll` invalidates every token issued so far (a generation number inside each token).
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import type { TokenRecord } from '../../sources/partner-api/types.js';
import { Rejection } from './rejection.js';
import type { ZonedClock } from '../../core/zoned-time.js';

export interface TokenAuthorityOptions {
  identifier: string;
  secret: string;
  /** Access-token lifetime. */
  lifetimeSeconds: number;
  /** Refresh-token lifetime (default: 24 h, at least twice the access lifetime). */
  refreshLifetimeSeconds?: number;
  clock: ZonedClock;
  now?: () => number;
}

interface AccessClaims {
  iss: string;
  sub: string;
  jti: string;
  gen: number;
  iat: number;
  exp: number;
}

interface RefreshGrant {
  accessJti: string;
  generation: number;
  expiresMs: number;
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');
const digest = (value: string) => createHash('sha256').update(value).digest();

export class TokenAuthority {
  private readonly signingKey = randomBytes(32);
  private readonly refreshGrants = new Map<string, RefreshGrant>();
  private generation = 0;
  private readonly now: () => number;
  issued = 0;
  refreshes = 0;

  constructor(private readonly options: TokenAuthorityOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The token operation: `{ identifier, secret }` → a new token record. */
  authenticate(body: unknown): TokenRecord {
    const { identifier, secret } = (body ?? {}) as Record<string, unknown>;
    if (typeof identifier !== 'string' || typeof secret !== 'string' || !identifier || !secret) {
      throw new Rejection(
        'invalid_request',
        'The body must be a JSON object with the strings "identifier" and "secret".',
      );
    }
    if (!sameSecret(identifier, this.options.identifier) || !sameSecret(secret, this.options.secret)) {
      throw new Rejection('invalid_credentials', 'Invalid identifier or secret.');
    }
    return this.issue();
  }

  /** The refresh operation: `{ accessToken, refreshToken }` → a new token record; the refresh token is used up. */
  refresh(body: unknown): TokenRecord {
    const { accessToken, refreshToken } = (body ?? {}) as Record<string, unknown>;
    if (typeof accessToken !== 'string' || typeof refreshToken !== 'string' || !accessToken || !refreshToken) {
      throw new Rejection(
        'invalid_request',
        'The body must be a JSON object with the strings "accessToken" and "refreshToken".',
      );
    }
    const claims = this.decode(accessToken);
    if (claims.gen !== this.generation)
      throw new Rejection('token_revoked', 'The access token was revoked; authenticate again.');
    const grant = this.refreshGrants.get(refreshToken);
    if (!grant || grant.accessJti !== claims.jti || grant.generation !== this.generation) {
      throw new Rejection(
        'invalid_refresh_token',
        'Unknown, already used or mismatched refresh token; authenticate again.',
      );
    }
    this.refreshGrants.delete(refreshToken);
    if (grant.expiresMs <= this.now())
      throw new Rejection('refresh_token_expired', 'The refresh token expired; authenticate again.');
    this.refreshes++;
    return this.issue();
  }

  /** Checks `Authorization: Bearer <token>`; throws a Rejection when missing, invalid, expired or revoked. */
  verify(authorization: string | undefined): void {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw new Rejection('missing_token', 'Missing "Authorization: Bearer <ACCESS_TOKEN>" header.');
    const claims = this.decode(match[1]!);
    if (claims.gen !== this.generation)
      throw new Rejection('token_revoked', 'The access token was revoked; authenticate again.');
    if (claims.exp * 1000 <= this.now())
      throw new Rejection('token_expired', 'The access token expired; refresh it or authenticate again.');
  }

  /** Invalidates every access and refresh token issued so far. */
  revokeAll(): void {
    this.generation++;
    this.refreshGrants.clear();
  }

  private issue(): TokenRecord {
    const nowMs = this.now();
    const lifetimeMs = this.options.lifetimeSeconds * 1000;
    const claims: AccessClaims = {
      iss: 'pinrecon-simulator',
      sub: this.options.identifier,
      jti: randomUUID(),
      gen: this.generation,
      iat: Math.floor(nowMs / 1000),
      exp: (nowMs + lifetimeMs) / 1000, // NumericDate may be fractional: sub-second lifetimes stay exact
    };
    const refreshToken = randomBytes(32).toString('base64url');
    const refreshLifetimeMs =
      (this.options.refreshLifetimeSeconds ?? Math.max(86_400, 2 * this.options.lifetimeSeconds)) * 1000;
    this.pruneExpiredGrants(nowMs);
    this.refreshGrants.set(refreshToken, {
      accessJti: claims.jti,
      generation: this.generation,
      expiresMs: nowMs + refreshLifetimeMs,
    });
    this.issued++;
    return {
      accessToken: this.sign(claims),
      refreshToken,
      createdAt: this.options.clock.isoWithOffset(nowMs, true),
      expiredAt: this.options.clock.isoWithOffset(nowMs + lifetimeMs, true),
      isAuthenticated: true,
    };
  }

  private sign(claims: AccessClaims): string {
    const unsigned = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
    return `${unsigned}.${createHmac('sha256', this.signingKey).update(unsigned).digest('base64url')}`;
  }

  /** Claims of a token this server signed (expired or not); throws for anything else. */
  private decode(token: string): AccessClaims {
    const parts = token.split('.');
    if (parts.length === 3) {
      const expected = createHmac('sha256', this.signingKey).update(`${parts[0]}.${parts[1]}`).digest();
      const given = Buffer.from(parts[2]!, 'base64url');
      if (given.length === expected.length && timingSafeEqual(given, expected)) {
        return JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as AccessClaims;
      }
    }
    throw new Rejection('invalid_token', 'The access token is not valid.');
  }

  private pruneExpiredGrants(nowMs: number): void {
    if (this.refreshGrants.size < 1000) return;
    for (const [token, grant] of this.refreshGrants) if (grant.expiresMs <= nowMs) this.refreshGrants.delete(token);
  }
}

/** Compares secrets in constant time (hashes first, so lengths do not leak either). */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
