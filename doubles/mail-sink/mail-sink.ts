/**
 * A local SMTP sink for the demo (and anyone trying pinrecon without a mail server): accepts every message
 * on loopback and saves its bytes, exactly as received, as `<n>.eml` in a folder.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { SMTPServer } from 'smtp-server';

export interface MailSink {
  /** smtp://127.0.0.1:PORT */
  url: string;
  /** Paths of the messages received so far, in order. */
  received: string[];
  close(): Promise<void>;
}

export async function startMailSink(folder: string, options: { host?: string; port?: number } = {}): Promise<MailSink> {
  mkdirSync(folder, { recursive: true });
  const received: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 100 * 1024 * 1024,
    onData(stream, _session, callback) {
      const file = path.join(folder, `${String(received.length + 1).padStart(3, '0')}.eml`);
      pipeline(stream, createWriteStream(file))
        .then(() => {
          received.push(file);
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `smtp://${host}:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
