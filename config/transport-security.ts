/**
 * Credentials in transit: which hosts are loopback, how `email.smtpUrl` is read (WHATWG URL, never the
 * deprecated url.parse), whether a connection may carry credentials in plain text, and how a URL is shown
 * without its credentials. Nothing here ever puts a URL's password into a message.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ConfigError } from '../core/errors.js';

/**
 * Whether a host *claims* to be loopback: a loopback address (127.0.0.0/8, ::1) or a name for one
 * (localhost, *.localhost). A name is only a claim, checked when the config is loaded (which is
 * synchronous); `resolveLoopback` confirms it by the addresses the name resolves to before anything is sent.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  if (/^::ffff:127\.\d+\.\d+\.\d+$/.test(host)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** 127.0.0.0/8, ::1 and ::ffff:127.x.y.z, as addresses (no name). */
export function isLoopbackAddress(address: string): boolean {
  const host = address.toLowerCase().replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return false;
  return host === '::1' || host === '0:0:0:0:0:0:0:1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(host);
}

export interface LoopbackResolution {
  /** Every address the host resolves to is loopback (false when it does not resolve). */
  loopback: boolean;
  /** What it resolved to (the address itself for an address). */
  addresses: string[];
}

/**
 * Whether traffic to `host` stays on this machine, by what the host resolves to (dns.lookup, as a
 * connection would): every address must be loopback. A name that does not resolve is not loopback.
 * (issue 18: `foo.localhost` was trusted by its name alone.)
 */
export async function resolveLoopback(host: string): Promise<LoopbackResolution> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) return { loopback: isLoopbackAddress(bare), addresses: [bare] };
  try {
    const addresses = (await lookup(bare, { all: true, verbatim: true })).map((entry) => entry.address);
    return { loopback: addresses.length > 0 && addresses.every(isLoopbackAddress), addresses };
  } catch {
    return { loopback: false, addresses: [] };
  }
}

/**
 * Throws a ConfigError naming `key` when plain-text traffic was allowed to `host` because it claimed to be
 * loopback, and it does not resolve to loopback addresses only.
 */
export async function confirmLoopback(host: string, key: string, optOut: string): Promise<LoopbackResolution> {
  const resolution = await resolveLoopback(host);
  if (!resolution.loopback) {
    const found =
      resolution.addresses.length > 0 ? `resolves to ${resolution.addresses.join(', ')}` : 'does not resolve';
    throw new ConfigError(
      `${key}: the host ${host} is taken for loopback only if every address it resolves to is, but it ${found}. ` +
        `Use https:// (or the address 127.0.0.1), or set ${optOut} to true to send in plain text anyway.`,
      undefined,
      key,
    );
  }
  return resolution;
}

export interface SmtpTarget {
  /** smtps:// speaks TLS from the first byte; smtp:// may upgrade with STARTTLS. */
  secure: boolean;
  host: string;
  /** Undefined: nodemailer's default (587, or 465 for smtps). */
  port?: number;
  /** Percent-decoded. */
  user?: string;
  /** Percent-decoded. */
  password?: string;
}

/**
 * Reads an SMTP URL `smtp[s]://[user[:password]@]host[:port]`. Throws an Error whose message says what is
 * wrong without quoting the URL (it may hold a password): a `/ # @ ? %` in the user or password must be
 * percent-encoded (`%2F %23 %40 %3F %25`).
 */
export function parseSmtpUrl(text: string): SmtpTarget {
  const encodeHint =
    'percent-encode "/", "#", "?", "@" and "%" in the user and password (as %2F, %23, %3F, %40, %25), or put the ' +
    'password in PINRECON_SMTP_PASSWORD';
  const scheme = /^(smtps?):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (!scheme) throw new Error('must start with smtp:// or smtps://');
  const authority = text.slice(scheme.length + 3).split(/[/?#]/, 1)[0]!;
  if ((authority.match(/@/g) ?? []).length > 1) throw new Error(`has more than one "@" before the host: ${encodeHint}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`is not a valid URL (smtp[s]://user:password@host:port): ${encodeHint}`);
  }
  if (!url.hostname) throw new Error('has no host');
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
    throw new Error(
      `has a path, query or "#" after the host: an SMTP URL is smtp[s]://user:password@host:port; ${encodeHint}`,
    );
  }
  const decode = (value: string, what: string): string => {
    try {
      return decodeURIComponent(value);
    } catch {
      throw new Error(`has a malformed percent-encoding in its ${what}: ${encodeHint}`);
    }
  };
  const target: SmtpTarget = { secure: scheme === 'smtps', host: url.hostname.replace(/^\[|\]$/g, '') };
  if (url.port) target.port = Number(url.port);
  if (url.username) target.user = decode(url.username, 'user');
  if (url.password) target.password = decode(url.password, 'password');
  return target;
}

/**
 * Whether nodemailer must refuse to authenticate without TLS (`requireTLS`): credentials are given, the
 * connection is not TLS from the start, the host does not resolve to loopback only (`loopback`, from
 * resolveLoopback), and the operator did not opt out.
 */
export function smtpRequiresTls(
  target: SmtpTarget,
  hasCredentials: boolean,
  allowPlaintextAuth: boolean,
  loopback: boolean,
): boolean {
  return hasCredentials && !target.secure && !loopback && !allowPlaintextAuth;
}

/**
 * Removes the user and password from a URL such as smtp://user:pass@host (whatever characters they hold);
 * an unreadable URL that may carry credentials is shown as its scheme only.
 */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (!url.username && !url.password) return text;
    url.username = '';
    url.password = '';
    return url.href.replace('://', '://***@');
  } catch {
    return text.includes('@')
      ? text.replace(/^([a-z][\w+.-]*:\/\/)?[\s\S]*$/i, (_all, scheme: string | undefined) => `${scheme ?? ''}***`)
      : text;
  }
}
