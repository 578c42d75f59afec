import { createTransport } from 'nodemailer';

export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** A full Message-ID header value, `<id@domain>`. */
  readonly messageId: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the mail; rejects otherwise (the job is retried). */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export interface MailerSettings {
  readonly smtpUrl: string;
  readonly from: string;
}

/**
 * A pooled SMTP transport. It does not verify the server at start: SMTP may
 * come up after the worker, and a failed send is just a retry. Timeouts stay
 * well below the consumer's 30 s ack wait, and far below nodemailer's
 * defaults (2 minutes to connect, 10 minutes idle socket), so that a dead
 * server fails a job quickly and shutdown never waits on a hung socket.
 */
export function createMailer(settings: MailerSettings): Mailer {
  const transport = createTransport({
    url: settings.smtpUrl,
    pool: true,
    maxConnections: 5,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(mail) {
      await transport.sendMail({
        from: settings.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        messageId: mail.messageId,
      });
    },
    close() {
      transport.close();
    },
  };
}
