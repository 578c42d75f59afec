import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;
/** RFC 1035 RCODE 2: the server could not answer. */
const SERVER_FAILURE = 2;
/** RCODE 3: no such name. */
const NAME_ERROR = 3;

/** What the test DNS server answers for a name: TXT records (a record of several strings as an array), a failure, or nothing. */
export type DnsBehaviour = { readonly txt: readonly (string | readonly string[])[] } | 'server_failure' | 'no_answer';

export interface DnsServer {
  /** `127.0.0.1:port`, as DNS_SERVERS takes it. */
  readonly address: string;
  /** Answers TXT queries for `name` (any case) as told; every other name is NXDOMAIN. */
  answer(name: string, behaviour: DnsBehaviour): void;
  close(): Promise<void>;
}

/**
 * A real DNS server (dns2) on a random UDP port of the loopback interface:
 * the TXT records a test publishes for a domain's verification, a server
 * failure, or silence (a resolver's timeout).
 */
export async function startDnsServer(): Promise<DnsServer> {
  const names = new Map<string, DnsBehaviour>();
  const server = dns2.createServer({
    udp: { type: 'udp4' },
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const behaviour = question ? names.get(question.name.toLowerCase()) : undefined;
      if (behaviour === 'no_answer') return;
      if (behaviour === 'server_failure') {
        response.header.rcode = SERVER_FAILURE;
      } else if (behaviour && question && question.type === Packet.TYPE.TXT) {
        for (const value of behaviour.txt) {
          response.answers.push(Packet.createResourceFromQuestion(question, { ttl: 1, data: typeof value === 'string' ? value : [...value] }));
        }
      } else if (!behaviour) {
        response.header.rcode = NAME_ERROR;
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const { port } = addresses.udp as AddressInfo;
  return {
    address: `127.0.0.1:${String(port)}`,
    answer(name, behaviour) {
      names.set(name.toLowerCase(), behaviour);
    },
    close: () => server.close(),
  };
}
