import { startDnsServer, type DnsServer } from '@latchkey/test-kit';
import { txtLookup, txtRecordHolds } from './domain-verification';

let servers: DnsServer[];

beforeAll(async () => {
  servers = await Promise.all([startDnsServer(), startDnsServer()]);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('txtRecordHolds()', () => {
  it('finds the value among the TXT records, a long record joined from its strings', async () => {
    const [dns] = servers;
    dns!.answer('_latchkey-challenge.acme.test', { txt: ['v=spf1 -all', 'latchkey-domain-verification=abc', ['latchkey-domain-', 'verification=split']] });
    const lookup = txtLookup([dns!.address]);
    expect(await txtRecordHolds(lookup, '_latchkey-challenge.acme.test', 'latchkey-domain-verification=abc')).toBe(true);
    expect(await txtRecordHolds(lookup, '_latchkey-challenge.ACME.test', 'latchkey-domain-verification=abc')).toBe(true);
    expect(await txtRecordHolds(lookup, '_latchkey-challenge.acme.test', 'latchkey-domain-verification=split')).toBe(true);
    expect(await txtRecordHolds(lookup, '_latchkey-challenge.acme.test', 'latchkey-domain-verification=abd')).toBe(false);
    expect(await txtRecordHolds(lookup, '_latchkey-challenge.unknown.test', 'latchkey-domain-verification=abc')).toBe(false);
  });

  it('gives up within its budget when every server is silent, however many there are', async () => {
    for (const server of servers) server.answer('_latchkey-challenge.silent.test', 'no_answer');
    const started = Date.now();
    expect(await txtRecordHolds(txtLookup(servers.map((server) => server.address)), '_latchkey-challenge.silent.test', 'x')).toBe(false);
    expect(Date.now() - started).toBeLessThan(3_500);
  }, 10_000);
});
