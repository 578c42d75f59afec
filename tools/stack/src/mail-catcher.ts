import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { extractTokenLinks, mailFileStem } from './mail-links';

/** One mail the catcher received, as saved and parsed. */
export interface CaughtMail {
  /** Envelope recipients, lower-cased. */
  readonly to: readonly string[];
  readonly from: string;
  readonly subject: string;
  /** The plain-text part, where the links are (docs/api.md, "Links and tokens"). */
  readonly text: string;
  readonly links: readonly string[];
  /** The saved `.eml`; the text part is beside it as `.txt`. */
  readonly file: string;
  readonly receivedAt: Date;
}

export interface MailCatcher {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  readonly url: string;
  /** Every mail so far, oldest first; grows as mails arrive. */
  readonly mails: readonly CaughtMail[];
  /** Resolves with the first mail, received or still to come, that `match` accepts. */
  waitForMail(match: (mail: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  close(): Promise<void>;
}

export interface MailCatcherOptions {
  readonly directory: string;
  /** 0 for any free port. */
  readonly port: number;
  readonly onMail: (mail: CaughtMail) => void;
  /** Errors of single SMTP connections, which must not end the catcher. */
  readonly onError: (error: Error) => void;
}

function readAll(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

function headerRecipients(parsed: ParsedMail): string[] {
  const groups: AddressObject[] = Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : [];
  return groups.flatMap((group) => group.value.flatMap((address) => (address.address ? [address.address] : [])));
}

/** The envelope says who the mail was delivered to; the To header is what a client displays. */
function recipients(session: SMTPServerSession, parsed: ParsedMail): string[] {
  const envelope = session.envelope.rcptTo.map((address) => address.address);
  return (envelope.length > 0 ? envelope : headerRecipients(parsed)).map((address) => address.toLowerCase());
}

// Not `instanceof Error`: errors of Node's fs do not pass it inside jest's sandbox.
function isFileExists(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST';
}

/** Writes `<stem>.eml` and `<stem>.txt`, adding `-2`, `-3`… when two mails share a millisecond and recipient. */
async function saveMail(directory: string, stem: string, raw: Buffer, text: string): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    const base = path.join(directory, attempt === 1 ? stem : `${stem}-${attempt}`);
    try {
      await writeFile(`${base}.eml`, raw, { flag: 'wx' });
    } catch (error) {
      if (isFileExists(error)) continue;
      throw error;
    }
    await writeFile(`${base}.txt`, text);
    return `${base}.eml`;
  }
}

/**
 * An SMTP server on 127.0.0.1 that accepts every mail, without TLS or
 * authentication (as nodemailer sends to `smtp://` URLs), saves it under
 * `directory` and reports it with its links.
 */
export async function startMailCatcher(options: MailCatcherOptions): Promise<MailCatcher> {
  await mkdir(options.directory, { recursive: true });
  const mails: CaughtMail[] = [];
  const waiters = new Set<(mail: CaughtMail) => void>();

  const receive = async (stream: Readable, session: SMTPServerSession): Promise<void> => {
    const raw = await readAll(stream);
    const parsed = await simpleParser(raw);
    const to = recipients(session, parsed);
    const receivedAt = new Date();
    const text = parsed.text ?? '';
    const file = await saveMail(options.directory, mailFileStem(receivedAt, to[0] ?? ''), raw, text);
    const mail: CaughtMail = {
      to,
      from: parsed.from?.text ?? (session.envelope.mailFrom ? session.envelope.mailFrom.address : ''),
      subject: parsed.subject ?? '',
      text,
      links: extractTokenLinks(text),
      file,
      receivedAt,
    };
    mails.push(mail);
    options.onMail(mail);
    waiters.forEach((waiter) => waiter(mail));
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // Closing waits this long for open connections (default 30 s) before dropping them.
    closeTimeout: 1_000,
    onData(stream, session, callback) {
      receive(stream, session).then(
        () => callback(),
        (error: Error) => callback(error),
      );
    },
  });
  // SMTPServer re-emits its listener's errors; unheard, an 'error' event throws.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', options.onError);
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitForMail(match, timeoutMs = 10_000) {
      const existing = mails.find(match);
      if (existing) return Promise.resolve(existing);
      return new Promise((resolve, reject) => {
        const waiter = (mail: CaughtMail): void => {
          if (!match(mail)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(mail);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching mail within ${timeoutMs} ms (${mails.length} received)`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
