import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startMailCatcher, type CaughtMail, type MailCatcher } from './mail-catcher';

/**
 * Speaks just enough SMTP (RFC 5321) to deliver one message, waiting for
 * each reply, so the test does not depend on a mail library.
 */
async function sendMail(url: string, from: string, to: string, message: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.setEncoding('utf8');
  let buffer = '';
  const replies: string[] = [];
  const waiting: ((reply: string) => void)[] = [];
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    // A reply is complete at a line "NNN text"; "NNN-text" lines continue it.
    for (let match = /^(\d{3}) .*\r\n/m.exec(buffer); match; match = /^(\d{3}) .*\r\n/m.exec(buffer)) {
      const end = match.index + match[0].length;
      const reply = buffer.slice(0, end);
      buffer = buffer.slice(end);
      const next = waiting.shift();
      if (next) next(reply);
      else replies.push(reply);
    }
  });
  const reply = (): Promise<string> =>
    replies.length > 0 ? Promise.resolve(replies.shift()!) : new Promise((resolve) => waiting.push(resolve));
  const command = async (line: string, expected: string): Promise<void> => {
    socket.write(`${line}\r\n`);
    expect(await reply()).toMatch(new RegExp(`^${expected}`, 'm'));
  };
  expect(await reply()).toMatch(/^220/);
  await command('EHLO test.local', '250');
  await command(`MAIL FROM:<${from}>`, '250');
  await command(`RCPT TO:<${to}>`, '250');
  await command('DATA', '354');
  await command(`${message.replace(/\n/g, '\r\n')}\r\n.`, '250');
  await command('QUIT', '221');
  socket.end();
}

describe('startMailCatcher', () => {
  let dir: string;
  let catcher: MailCatcher;
  const reported: CaughtMail[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mail-catcher-'));
    catcher = await startMailCatcher({
      directory: path.join(dir, 'mail'),
      port: 0,
      onMail: (mail) => reported.push(mail),
      onError: (error) => {
        throw error;
      },
    });
  });
  afterAll(async () => {
    await catcher.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on a 127.0.0.1 smtp URL', () => {
    expect(catcher.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
  });

  it('saves a mail as .eml and its text as .txt, and reports it with its links', async () => {
    const waiting = catcher.waitForMail((mail) => mail.to.includes('ada@example.com'));
    await sendMail(
      catcher.url,
      'no-reply@localhost',
      'Ada@Example.com',
      [
        'From: Latchkey <no-reply@localhost>',
        'To: Ada <Ada@Example.com>',
        'Subject: Verify your email',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        'Open this link:',
        'http://localhost:8080/verify-email?token=3D_q2Xk-9Abc',
      ].join('\n'),
    );
    const mail = await waiting;
    expect(mail).toMatchObject({
      to: ['ada@example.com'],
      from: '"Latchkey" <no-reply@localhost>',
      subject: 'Verify your email',
      links: ['http://localhost:8080/verify-email?token=_q2Xk-9Abc'],
    });
    expect(mail.text).toContain('Open this link:');
    expect(reported).toContain(mail);
    expect(catcher.mails).toContain(mail);

    expect(path.basename(mail.file)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z-ada@example\.com\.eml$/);
    expect(readFileSync(mail.file, 'utf8')).toContain('Subject: Verify your email');
    expect(readFileSync(mail.file.replace(/\.eml$/, '.txt'), 'utf8')).toContain(
      'http://localhost:8080/verify-email?token=_q2Xk-9Abc',
    );
  });

  it('keeps two mails to one recipient in the same millisecond apart', async () => {
    const message = 'Subject: Notice\n\nYour password was changed.';
    await Promise.all([
      sendMail(catcher.url, 'a@localhost', 'bob@example.com', message),
      sendMail(catcher.url, 'a@localhost', 'bob@example.com', message),
    ]);
    const files = readdirSync(path.join(dir, 'mail')).filter((file) => file.includes('bob@example.com'));
    expect(files.filter((file) => file.endsWith('.eml'))).toHaveLength(2);
    expect(files.filter((file) => file.endsWith('.txt'))).toHaveLength(2);
  });

  it('gives up waiting for a mail that does not come', async () => {
    await expect(catcher.waitForMail((mail) => mail.subject === 'never', 100)).rejects.toThrow('no matching mail');
  });
});
