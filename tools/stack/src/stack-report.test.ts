import type { RunningStack } from './launch-stack';
import { displayPath, formatStackEvent, formatStackSummary, formatUnreachableHint, redactUrl } from './stack-report';

describe('formatStackEvent', () => {
  it('prints the links of a mail', () => {
    const line = formatStackEvent({
      type: 'mail',
      mail: {
        to: ['ada@example.com'],
        from: 'Latchkey <no-reply@localhost>',
        subject: 'Verify your email',
        text: '',
        links: ['http://localhost:8080/verify-email?token=abc'],
        file: '/elsewhere/mail/x.eml',
        receivedAt: new Date(0),
      },
    });
    expect(line).toBe(
      'mail to ada@example.com: Verify your email\n' +
        '    http://localhost:8080/verify-email?token=abc\n' +
        '    saved as /elsewhere/mail/x.eml',
    );
  });

  it('prints the last output of a unit that died while running, but not twice for one that never got ready', () => {
    const exit = { code: 1, signal: null };
    expect(
      formatStackEvent({ type: 'exited', unit: 'jobs', phase: 'running', exit, lastLines: ['{"msg":"lost NATS"}'] }),
    ).toBe('jobs exited with code 1; its last output:\n    {"msg":"lost NATS"}');
    expect(formatStackEvent({ type: 'exited', unit: 'jobs', phase: 'starting', exit, lastLines: ['x'] })).toBe(
      'jobs exited with code 1 before it was ready',
    );
  });
});

describe('formatStackSummary', () => {
  const stack = (processes: string[], env: Record<string, string>): RunningStack => ({
    gatewayUrl: 'http://localhost:8080',
    env,
    databaseUrls: {},
    smtp: {
      url: 'smtp://127.0.0.1:1025',
      directory: '/data/mail',
      mails: [],
      waitForMail: () => Promise.reject(new Error('unused')),
    },
    s3: { endpoint: 'http://127.0.0.1:4569', bucket: 'latchkey-posts', directory: '/data/s3' },
    processes: new Map(processes.map((name) => [name, { name, pid: 1, ports: {}, output: () => '' }])),
    restart: () => Promise.reject(new Error('unused')),
    stop: () => Promise.resolve(),
  });

  it('says where the gateway, mail and S3 are, without the database password', () => {
    const summary = formatStackSummary(
      stack(['identity', 'gateway'], {
        DATABASE_URL: 'postgres://app:secret@127.0.0.1:5432/latchkey',
        PUBLIC_APP_URL: 'http://localhost:8080',
      }),
      '/data/logs',
    );
    expect(summary).toContain('Latchkey is running (identity, gateway)');
    expect(summary).toContain('gateway   http://localhost:8080');
    expect(summary).toContain('postgres://app:***@127.0.0.1:5432/latchkey');
    expect(summary).not.toContain('secret');
    expect(summary).toContain('smtp://127.0.0.1:1025, saved under /data/mail');
    expect(summary).toContain('http://127.0.0.1:4569, bucket latchkey-posts');
    expect(summary).not.toContain('links');
  });

  it('says when the gateway does not run and where links point instead', () => {
    const summary = formatStackSummary(stack(['jobs'], { PUBLIC_APP_URL: 'https://app.example' }), '/data/logs');
    expect(summary).toContain('not started (see --units)');
    expect(summary).toContain('links     https://app.example');
  });
});

describe('formatUnreachableHint', () => {
  it('names the missing service and the command that starts it', () => {
    const hint = formatUnreachableHint([
      {
        name: 'redis',
        variable: 'REDIS_URL',
        host: '127.0.0.1',
        port: 6379,
        startCommand: 'redis-server --daemonize yes',
      },
    ]);
    expect(hint).toContain('redis at 127.0.0.1:6379 (REDIS_URL)');
    expect(hint).toContain('    redis-server --daemonize yes');
    expect(hint).toContain('Or point REDIS_URL at one that runs.');
  });
});

describe('redactUrl and displayPath', () => {
  it('hides only the password', () => {
    expect(redactUrl('redis://:pw@cache:6379')).toBe('redis://:***@cache:6379');
    expect(redactUrl('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
  });

  it('shortens paths inside the working directory only', () => {
    expect(displayPath('/repo/.data/mail', '/repo')).toBe('.data/mail');
    expect(displayPath('/tmp/mail', '/repo')).toBe('/tmp/mail');
  });
});
