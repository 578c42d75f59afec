import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openBenchTarget, parseProcessList } from './bench-stack';

describe('parseProcessList()', () => {
  it('reads BENCH_PIDS as stack processes', () => {
    expect(parseProcessList('gateway=12, identity=34')).toEqual([
      { name: 'gateway', role: 'stack', pid: 12 },
      { name: 'identity', role: 'stack', pid: 34 },
    ]);
    expect(parseProcessList(undefined)).toEqual([]);
  });

  it('refuses an entry without a numeric pid', () => {
    expect(() => parseProcessList('gateway')).toThrow(/BENCH_PIDS/);
  });
});

describe("an external stack's mailedToken()", () => {
  const mailDir = mkdtempSync(path.join(tmpdir(), 'latchkey-bench-mail-'));
  afterAll(() => rmSync(mailDir, { recursive: true, force: true }));

  it("finds the newest mail with the page's link among the address's mails, as the stack's catcher names them", async () => {
    const email = 'bench.ab12cd.1@example.com';
    const mail = (time: string, text: string): void => writeFileSync(path.join(mailDir, `${time}-${email}.txt`), text);
    mail('2026-11-28T00-00-00.500Z', 'Join: http://127.0.0.1:1/invitations/accept?token=invite-0\n');
    mail('2026-11-28T00-00-01.000Z', 'Verify: http://127.0.0.1:1/verify-email?token=verify_1\n');
    mail('2026-11-28T00-00-02.000Z', 'Join: http://127.0.0.1:1/invitations/accept?token=invite-1\n');
    mail('2026-11-28T00-00-03.000Z', 'A new sign-in to your account.\n');
    writeFileSync(path.join(mailDir, '2026-11-28T00-00-04.000Z-bench.ab12cd.10@example.com.txt'), 'http://x/invitations/accept?token=other\n');
    const target = await openBenchTarget({
      env: { BENCH_URL: 'http://127.0.0.1:1', BENCH_MAIL_DIR: mailDir, BENCH_ORGS_GRPC_ADDRESS: '127.0.0.1:2' },
    });
    expect(target.orgsGrpcAddress).toBe('127.0.0.1:2');
    await expect(target.mailedToken(email, 'invitations/accept', 1_000)).resolves.toBe('invite-1');
    await expect(target.mailedToken(email, 'verify-email', 1_000)).resolves.toBe('verify_1');
    await expect(target.mailedToken('bench.ab12cd.2@example.com', 'verify-email', 200)).rejects.toThrow(/no mail to bench.ab12cd.2@example.com/);
  });
});
