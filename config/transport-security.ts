/**
 * Credentials in transit: which hosts are loopback, how `email.smtpUrl` is read (WHATWG URL, never the
 * deprecated url.parse), whether a connection may carry credentials in plain text, and how a URL is shown
 * without its credentials. Nothing here ever puts a URL's password into a message.
 */

/** localhost, *.localhost, 127.0.0.0/8 and ::1: traffic that never leaves this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  if (/^::ffff:127\.\d+\.\d+\.\d+$/.test(host)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
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
  const encodeHint = 'percent-encode "/", "#", "?", "@" and "%" in the user and password (as %2F, %23, %3F, %40, %25), or put the password in PINRECON_SMTP_PASSWORD';
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
    throw new Error(`has a path, query or "#" after the host: an SMTP URL is smtp[s]://user:password@host:port; ${encodeHint}`);
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
 * connection is not TLS from the start, the host is not loopback, and the operator did not opt out.
 */
export function smtpRequiresTls(target: SmtpTarget, hasCredentials: boolean, allowPlaintextAuth: boolean): boolean {
  return hasCredentials && !target.secure && !isLoopbackHost(target.host) && !allowPlaintextAuth;
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
    return text.includes('@') ? text.replace(/^([a-z][\w+.-]*:\/\/)?[\s\S]*$/i, (_all, scheme: string | undefined) => `${scheme ?? ''}***`) : text;
  }
}
