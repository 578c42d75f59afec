import ipaddr from 'ipaddr.js';

/**
 * The part of a client address that limits count: an IPv4 address as it is
 * (an IPv4-mapped IPv6 address counts as its IPv4 address), an IPv6 address
 * by its first `ipv6PrefixLength` bits. One subscriber gets a whole /64 and
 * can rotate through it, so counting full IPv6 addresses would limit no one.
 */
export function clientKeyOf(address: string, ipv6PrefixLength: number): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().toString();
  const bytes = ipv6.toByteArray();
  for (let bit = ipv6PrefixLength; bit < 128; bit++) bytes[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return `${ipaddr.fromByteArray(bytes).toString()}/${ipv6PrefixLength}`;
}
