import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './wait-for';

export interface ReceivedMail {
  readonly to: string[];
  readonly from: string;
  readonly subject: string;
  readonly text: string;
  readonly messageId: string | undefined;
}

export interface SmtpSink {
  readonly url: string;
  readonly mails: readonly ReceivedMail[];
  /** Waits for a mail to `to` that `match` accepts (default: any). */
  waitForMail(to: string, match?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

function addresses(parsed: ParsedMail): string[] {
  const list = Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : [];
  return list.flatMap((group) => group.value.map((a) => (a.address ?? '').toLowerCase()));
}

/** A real SMTP server on a random port that keeps every mail it receives. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          mails.push({
            to: addresses(parsed),
            from: parsed.from?.text ?? '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            messageId: parsed.messageId,
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitForMail(to, match = () => true, timeoutMs = 10_000) {
      const address = to.toLowerCase();
      return waitFor(() => mails.find((m) => m.to.includes(address) && match(m)), {
        timeoutMs,
        description: `a mail to ${to}`,
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of the first `{base}/{path}?token=T` link in a mail. */
export function tokenFromMail(mail: ReceivedMail, path: string): string {
  const match = new RegExp(`/${path}\\?token=([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!match?.[1]) throw new Error(`no ${path} link in mail "${mail.subject}"`);
  return match[1];
}
