import { refusedAddressReason } from './refused-address';

describe('refusedAddressReason()', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['100.64.0.1', 'shared address space (CGNAT)'],
    ['100.127.255.255', 'shared address space (CGNAT)'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['192.0.0.192', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
  ])('refuses IPv4 %s as %s', (address, reason) => {
    expect(refusedAddressReason(address)).toBe(reason);
  });

  it.each([
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['64:ff9b:1::a', 'private'],
    ['100::1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'tunnel'],
  ])('refuses IPv6 %s as %s', (address, reason) => {
    expect(refusedAddressReason(address)).toBe(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback (IPv4-mapped)'],
    ['::ffff:7f00:1', 'loopback (IPv4-mapped)'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback (IPv4-mapped)'],
    ['::ffff:10.1.2.3', 'private (IPv4-mapped)'],
    ['::ffff:ac10:1', 'private (IPv4-mapped)'],
    ['::ffff:192.168.0.1', 'private (IPv4-mapped)'],
    ['::ffff:169.254.169.254', 'cloud metadata (IPv4-mapped)'],
    ['::ffff:a9fe:a9fe', 'cloud metadata (IPv4-mapped)'],
    ['::ffff:169.254.1.1', 'link-local (IPv4-mapped)'],
    ['::ffff:100.64.0.1', 'shared address space (CGNAT) (IPv4-mapped)'],
    ['::ffff:0.0.0.0', 'unspecified (IPv4-mapped)'],
    ['::127.0.0.1', 'loopback (IPv4-compatible)'],
    ['64:ff9b::10.0.0.1', 'private (NAT64)'],
    ['64:ff9b::a9fe:a9fe', 'cloud metadata (NAT64)'],
    ['2002:7f00:1::1', 'loopback (6to4)'],
    ['2002:c0a8:101::', 'private (6to4)'],
  ])('refuses the IPv6 form %s of an internal IPv4 address as %s', (address, reason) => {
    expect(refusedAddressReason(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.1',
    '169.253.255.255',
    '192.169.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    'fbff:ffff::1',
  ])('lets the public address %s through', (address) => {
    expect(refusedAddressReason(address)).toBeUndefined();
  });

  it('throws a TypeError for what is not an IP address', () => {
    for (const text of ['localhost', '127.1', '[::1]', '', '1.2.3.4.5']) expect(() => refusedAddressReason(text)).toThrow(TypeError);
  });
});
