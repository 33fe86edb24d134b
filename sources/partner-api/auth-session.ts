/**
 * The provider login as a session: gets a token with identifier and secret, refreshes it before its
 * `expiredAt` (minus `api.refreshMarginSeconds`), lets only one renewal run at a time (concurrent callers
 * await the same one), logs in again when a refresh fails, and renews after the provider rejects a token
 * that may have been revoked. Tokens are kept in memory only and never put in a message or event.
 */
import { ConfigError } from '../../core/errors.js';
import type { ApiConfig } from '../../config/schema.js';
import { describeEndpoint, expandEndpoint, type Endpoint } from './endpoints.js';
import { quoteBody, ProviderError } from './errors.js';
import type { ClientStats, EventSink } from './events.js';
import { isSuccess, type HttpAnswer, type Transport } from './http.js';
import type { RetryPolicy } from './retry-policy.js';
import type { TokenRecord } from './types.js';

interface Token {
  accessToken: string;
  refreshToken: string;
  /** Local clock (ms) from which the token is renewed before use. */
  renewAt: number;
}

export class AuthSession {
  private token: Token | undefined;
  private renewal: Promise<string> | undefined;
  /** Every credential and token of this session, for redaction. */
  readonly secrets = new Set<string>();
  private readonly credentials: { identifier: string; secret: string };

  constructor(
    private readonly api: ApiConfig,
    private readonly endpoints: { getToken: Endpoint; refreshToken: Endpoint },
    private readonly transport: Transport,
    private readonly retry: RetryPolicy,
    private readonly stats: ClientStats,
    private readonly emit: EventSink,
  ) {
    this.credentials = requireCredentials(api);
    this.secrets.add(this.credentials.identifier).add(this.credentials.secret);
  }

  /** A valid access token: the current one, or a renewed one when it is within the margin of expiring. */
  async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return this.token.accessToken;
    return this.renew(() => (this.token ? this.refreshOrLogin(this.token) : this.login('first')));
  }

  /**
   * After the provider rejected `rejected`: logs in again, unless another caller already replaced that
   * token (then its replacement is returned) or is replacing it now (then that renewal is awaited).
   */
  async renewAfterRejection(rejected: string): Promise<string> {
    if (this.renewal) return this.renewal;
    if (this.token && this.token.accessToken !== rejected) return this.token.accessToken;
    return this.renew(() => this.login('rejected'));
  }

  private renew(work: () => Promise<Token>): Promise<string> {
    this.renewal ??= work()
      .then((token) => {
        this.token = token;
        return token.accessToken;
      })
      .finally(() => {
        this.renewal = undefined;
      });
    return this.renewal;
  }

  private async refreshOrLogin(current: Token): Promise<Token> {
    try {
      const answer = await this.post(this.endpoints.refreshToken, {
        accessToken: current.accessToken,
        refreshToken: current.refreshToken,
      });
      if (isSuccess(answer.status)) {
        const token = this.accept(answer, this.endpoints.refreshToken);
        this.stats.refreshes++;
        this.emit({ type: 'refreshed', expiresInSeconds: Math.round((token.renewAt - Date.now()) / 1000) });
        return token;
      }
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
    }
    return this.login('refresh_failed');
  }

  private async login(reason: 'first' | 'refresh_failed' | 'rejected'): Promise<Token> {
    const endpoint = this.endpoints.getToken;
    const answer = await this.post(endpoint, this.credentials);
    if (!isSuccess(answer.status)) {
      throw new ProviderError(
        `${describeEndpoint(endpoint)}: the provider refused to log in (status ${answer.status}: ` +
          `${quoteBody(answer.text, this.secrets) || 'no body'}).`,
        {
          endpoint: endpoint.name,
          status: answer.status,
          body: quoteBody(answer.text, this.secrets),
          hint:
            'Check api.identifier and api.secret (env PINRECON_API_IDENTIFIER / PINRECON_API_SECRET): ' +
            'test and production credentials differ.',
        },
      );
    }
    const token = this.accept(answer, endpoint);
    this.stats.authentications++;
    this.emit({ type: 'authenticated', reason });
    return token;
  }

  private post(endpoint: Endpoint, body: object): Promise<HttpAnswer> {
    const url = expandEndpoint(this.api.baseUrl, endpoint);
    return this.retry.run(endpoint, () => this.transport.exchange({ endpoint, url, body }));
  }

  /** Reads a token record; renews `refreshMarginSeconds` before expiry, but never later than half its life. */
  private accept(answer: HttpAnswer, endpoint: Endpoint): Token {
    const record = answer.json as Partial<TokenRecord> | undefined;
    if (!record || typeof record.accessToken !== 'string' || record.accessToken === '') {
      throw new ProviderError(`${describeEndpoint(endpoint)}: the answer holds no accessToken.`, {
        endpoint: endpoint.name,
        status: answer.status,
        body: quoteBody(answer.text, this.secrets),
        hint: 'Check api.endpoints.getToken / api.endpoints.refreshToken point at the token operations.',
      });
    }
    this.secrets.add(record.accessToken);
    if (typeof record.refreshToken === 'string') this.secrets.add(record.refreshToken);
    // Count the lifetime from our own clock (the provider's may be skewed), and never past its expiredAt.
    const created = Date.parse(record.createdAt ?? '');
    const expired = Date.parse(record.expiredAt ?? '');
    const now = Date.now();
    let expiresAt = Number.isFinite(expired) ? expired : Number.POSITIVE_INFINITY;
    if (Number.isFinite(created) && Number.isFinite(expired))
      expiresAt = Math.min(expired, answer.receivedAt.getTime() + (expired - created));
    const lifetime = expiresAt - now;
    const margin = Math.min(this.api.refreshMarginSeconds * 1000, lifetime / 2);
    return { accessToken: record.accessToken, refreshToken: record.refreshToken ?? '', renewAt: expiresAt - margin };
  }
}

function requireCredentials(api: ApiConfig): { identifier: string; secret: string } {
  const missing = [
    !api.identifier && 'api.identifier (env PINRECON_API_IDENTIFIER)',
    !api.secret && 'api.secret (env PINRECON_API_SECRET)',
  ].filter((m): m is string => Boolean(m));
  if (missing.length > 0) {
    throw new ConfigError(
      `Missing provider credentials: set ${missing.join(' and ')}. They are issued by the service operator (one set ` +
        `for testing, one for production).`,
      undefined,
      !api.identifier ? 'api.identifier' : 'api.secret',
    );
  }
  return { identifier: api.identifier!, secret: api.secret! };
}
