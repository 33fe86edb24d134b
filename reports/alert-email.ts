/**
 * The alert a failed or abandoned scheduled job sends (issue 31: a failure must reach a person): what failed,
 * where (host, folder, config, database), the command that retries it and the job's last log line, to
 * `email.alertsTo` (else `email.to`), plain text, no attachment, sent like the report (reports/email.ts).
 */
import { redactRememberedSecrets } from '../core/secret-redaction.js';
import { escapeHtml } from '../core/text-safety.js';
import type { EmailConfig } from '../config/schema.js';
import { deliverReportEmail, type DeliverOptions, type Delivery } from './email.js';

/** How a scheduled job ended badly: exited non-zero, stopped before it finished, or never started. */
export type JobFailure = 'failed' | 'abandoned' | 'not started';

export interface AlertFacts {
  schedule: string;
  failure: JobFailure;
  /** The job's command line after `pinrecon` (its period resolved). */
  args: string[];
  exitCode: number | null;
  /** The signal that ended it, if any. */
  signal?: string;
  startedAt: Date;
  seconds: number;
  host: string;
  workingDirectory: string;
  configFile?: string;
  database: string;
  /** The job's last error line on stderr (or its last line), as logged. */
  logLine?: string;
  /** True when the job ran to catch up a fire time missed while the scheduler was down. */
  caughtUp?: boolean;
}

/** The shell command that runs the job again by hand, as the scheduler ran it. */
export function retryCommand(facts: Pick<AlertFacts, 'args' | 'configFile' | 'workingDirectory'>): string {
  const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);
  const config = facts.configFile ? ['--config', facts.configFile] : [];
  return `cd ${quote(facts.workingDirectory)} && pinrecon ${[...facts.args, ...config].map(quote).join(' ')}`;
}

const catchingUp = 'catching up a fire time missed while the scheduler was down';

export function composeAlertEmail(facts: AlertFacts): { subject: string; text: string; html: string } {
  const how =
    facts.failure === 'failed'
      ? `exited with code ${facts.exitCode}`
      : facts.failure === 'abandoned'
        ? `was stopped before it finished${facts.signal ? ` (${facts.signal})` : ''}`
        : 'could not be started';
  const verdict = facts.failure === 'failed' ? 'FAILED' : facts.failure.toUpperCase();
  const subject = `[pinrecon] ${verdict}: ${facts.schedule} (pinrecon ${facts.args.join(' ')}) on ${facts.host}`;
  const lines = [
    `The scheduled job "${facts.schedule}" ${how}.`,
    '',
    `What:     pinrecon ${facts.args.join(' ')}${facts.caughtUp ? ` (${catchingUp})` : ''}`,
    `When:     started ${facts.startedAt.toISOString()}, ended after ${facts.seconds.toFixed(1)} s`,
    `Where:    host ${facts.host}, folder ${facts.workingDirectory}`,
    `Config:   ${facts.configFile ?? '(built-in defaults and environment)'}`,
    `Database: ${facts.database}`,
    '',
    'Log line:',
    `  ${facts.logLine ?? '(the job wrote no line on stderr)'}`,
    '',
    'Retry it (every job resumes where it stopped):',
    `  ${retryCommand(facts)}`,
    '',
    'The scheduler goes on with its other jobs; the run is recorded in schedule_runs and pipeline_runs.',
  ];
  // Whatever a job logged passed its own redaction; the scheduler's known secrets are removed once more.
  const text = redactRememberedSecrets(lines.join('\n'));
  const html = `<pre style="font-family:monospace;font-size:13px">${escapeHtml(text)}</pre>`;
  return { subject: redactRememberedSecrets(subject), text: `${text}\n`, html };
}

/** Who is alerted: `email.alertsTo`, else `email.to`. */
export function alertRecipients(config: EmailConfig): string[] {
  return config.alertsTo ?? config.to;
}

/** Sends one alert to `alertRecipients`, with the report's transport rules (TLS, retries, redaction). */
export function sendAlert(config: EmailConfig, facts: AlertFacts, options: DeliverOptions = {}): Promise<Delivery> {
  return deliverReportEmail({ ...config, to: alertRecipients(config) }, composeAlertEmail(facts), options);
}
