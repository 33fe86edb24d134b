/**
 * The `email` section of the configuration: the SMTP relay, its credentials and the message to finance
 * (issue 27: reports/email.ts takes `EmailConfig`, not the whole config).
 */
import { z } from 'zod';
import { parseSmtpUrl } from '../transport-security.js';

/** `pinrecon report --email`: the message to finance. */
export const emailSchema = z
  .strictObject({
    /**
     * SMTP server as `smtp://` or `smtps://user:pass@host:port` (STARTTLS when offered); a `/ # ? @ %` in the
     * user or password is percent-encoded. Checked at load, never echoed. Environment: PINRECON_SMTP_URL.
     * @default 'smtp://127.0.0.1:2525'
     */
    smtpUrl: z
      .string()
      .superRefine((text, context) => {
        try {
          parseSmtpUrl(text);
        } catch (error) {
          context.addIssue({ code: 'custom', message: (error as Error).message });
        }
      })
      .default('smtp://127.0.0.1:2525'),
    /**
     * The SMTP password as is, no percent-encoding; replaces the URL's (the URL then names only the user).
     * Environment: PINRECON_SMTP_PASSWORD (better than the file).
     * @default undefined (the URL's password, if any)
     */
    smtpPassword: z.string().min(1).optional(),
    /**
     * Allow sending credentials without TLS to a host that is not loopback (with a user or password, the
     * connection must be smtps:// or upgrade with STARTTLS, else nothing is sent). Warned about on every run.
     * @default false
     */
    allowPlaintextAuth: z.boolean().default(false),
    /**
     * Sender address.
     * @default 'pinrecon@example.com'
     */
    from: z.string().default('pinrecon@example.com'),
    /**
     * Recipients.
     * @default ['finance@example.com']
     */
    to: z.array(z.string()).default(['finance@example.com']),
    /**
     * Who is told when a scheduled job fails or is abandoned (issue 31): one alert per failure, with what
     * failed, where, the command that retries it and the log line.
     * @default undefined (email.to)
     */
    alertsTo: z.array(z.string()).min(1).optional(),
    /**
     * Subject line; `{period}` in it becomes the period.
     * @default undefined ("pinrecon <period>: N findings")
     */
    subject: z.string().optional(),
    /**
     * The email asks for the findings to be decided, the matches reviewed and the actions approved by this many
     * days after the period's last day (issue 30: the email leads with what to do and by when).
     * @default 5
     */
    decideWithinDays: z.number().int().nonnegative().default(5),
    /**
     * Larger workbooks are replaced by a summary-only one in the email.
     * @default 15728640 (15 MiB)
     */
    maxAttachmentBytes: z
      .number()
      .int()
      .positive()
      .default(15 * 1024 * 1024),
    /**
     * Retries of a failed send.
     * @default 3
     */
    retries: z.number().int().nonnegative().default(3),
  })
  .superRefine((email, context) => {
    const hasUser = (() => {
      try {
        return parseSmtpUrl(email.smtpUrl).user !== undefined;
      } catch {
        return true; // the URL's own issue is reported already
      }
    })();
    if (email.smtpPassword !== undefined && !hasUser) {
      context.addIssue({
        code: 'custom',
        path: ['smtpPassword'],
        message: 'needs a user in email.smtpUrl (smtp://user@host:port)',
      });
    }
  })
  .prefault({});

export type EmailConfig = z.output<typeof emailSchema>;
