import { isIPv4, isIPv6 } from 'node:net';

type Range = readonly [cidr: string, reason: string];

/**
 * IPv4 blocks a request on behalf of someone else must never reach (RFC
 * 6890, the IANA special-purpose registry): this machine, the networks it
 * sits in, and the cloud's metadata service. More specific blocks first,
 * since the first match names the reason.
 */
const IPV4_REFUSED: readonly Range[] = [
  ['169.254.169.254/32', 'cloud metadata'],
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  // IETF protocol assignments; some clouds put their metadata here (192.0.0.192).
  ['192.0.0.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  // Future use and the limited broadcast address.
  ['240.0.0.0/4', 'reserved'],
];

/** The IPv6 counterparts (RFC 4193 unique local, RFC 4291 link-local, ...). */
const IPV6_REFUSED: readonly Range[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fd00:ec2::254/128', 'cloud metadata'],
  // Local-use NAT64 (RFC 8215): translated into the operator's own network.
  ['64:ff9b:1::/48', 'private'],
  ['100::/64', 'reserved'],
  // Teredo carries its client's IPv4 address obfuscated: nothing to check it by.
  ['2001::/32', 'tunnel'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  // Site-local, deprecated by RFC 3879 but still routed by some networks.
  ['fec0::/10', 'private'],
  ['ff00::/8', 'multicast'],
];

/**
 * IPv6 forms that reach an IPv4 address, which is what is checked: the
 * block, the bit offset of the IPv4 address from the right, and the form's name.
 */
const IPV4_CARRIERS: readonly (readonly [cidr: string, shift: bigint, form: string])[] = [
  ['::ffff:0:0/96', 0n, 'IPv4-mapped'],
  ['::/96', 0n, 'IPv4-compatible'],
  ['64:ff9b::/96', 0n, 'NAT64'],
  ['2002::/16', 80n, '6to4'],
];

/** A CIDR block, ready to match: its first address and how many low bits it leaves free. */
interface Block {
  readonly base: bigint;
  readonly freeBits: bigint;
}

function block(cidr: string, width: 32 | 128): Block {
  const [address = '', bits = ''] = cidr.split('/');
  return { base: width === 32 ? ipv4Value(address) : ipv6Value(address), freeBits: BigInt(width - Number(bits)) };
}

function contains(range: Block, value: bigint): boolean {
  return value >> range.freeBits === range.base >> range.freeBits;
}

const ipv4Refused = IPV4_REFUSED.map(([cidr, reason]) => ({ ...block(cidr, 32), reason }));
const ipv6Refused = IPV6_REFUSED.map(([cidr, reason]) => ({ ...block(cidr, 128), reason }));
const ipv4Carriers = IPV4_CARRIERS.map(([cidr, shift, form]) => ({ ...block(cidr, 128), shift, form }));

/**
 * Why a request must not be sent to `address` on behalf of someone else
 * (a client's back-channel logout URI, a customer's webhook URL): the kind
 * of address it is (`loopback`, `private`, `link-local`, `shared address
 * space (CGNAT)`, `unspecified`, `cloud metadata`, `multicast`, `reserved`,
 * `tunnel`), with the IPv6 form that carries it (`loopback (IPv4-mapped)`);
 * undefined for a public unicast address. Throws a TypeError for what is
 * not an IP address.
 */
export function refusedAddressReason(address: string): string | undefined {
  if (isIPv4(address)) return refusedIPv4(ipv4Value(address));
  if (!isIPv6(address)) throw new TypeError(`not an IP address: ${address}`);
  const value = ipv6Value(address);
  // The single addresses first: :: and ::1 lie inside the IPv4-compatible block.
  const single = ipv6Refused.find((range) => range.freeBits === 0n && contains(range, value));
  if (single) return single.reason;
  const carrier = ipv4Carriers.find((range) => contains(range, value));
  if (carrier) {
    const reason = refusedIPv4((value >> carrier.shift) & 0xffff_ffffn);
    return reason && `${reason} (${carrier.form})`;
  }
  return ipv6Refused.find((range) => contains(range, value))?.reason;
}

function refusedIPv4(value: bigint): string | undefined {
  return ipv4Refused.find((range) => contains(range, value))?.reason;
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** An address isIPv6 accepted, as a 128-bit number; a zone (`%eth0`) is dropped, a trailing dotted quad read. */
function ipv6Value(address: string): bigint {
  let text = address.split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4Value(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}
