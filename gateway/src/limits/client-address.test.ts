import { clientKeyOf } from './client-address';

test('an IPv4 client is counted by its address', () => {
  expect(clientKeyOf('203.0.113.7', 64)).toBe('203.0.113.7');
  expect(clientKeyOf('203.0.113.8', 64)).not.toBe(clientKeyOf('203.0.113.7', 64));
});

test('an IPv4-mapped IPv6 address counts as the IPv4 address', () => {
  expect(clientKeyOf('::ffff:203.0.113.7', 64)).toBe('203.0.113.7');
});

test('IPv6 clients of one /64 share a key, and the next /64 does not', () => {
  const key = clientKeyOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd', 64);
  expect(clientKeyOf('2001:db8:1:2::1', 64)).toBe(key);
  expect(clientKeyOf('2001:0db8:0001:0002:ffff:ffff:ffff:ffff', 64)).toBe(key);
  expect(clientKeyOf('2001:db8:1:3::1', 64)).not.toBe(key);
});

test('the prefix length is configurable, to the bit', () => {
  expect(clientKeyOf('2001:db8:1:2::1', 48)).toBe(clientKeyOf('2001:db8:1:ffff::1', 48));
  expect(clientKeyOf('2001:db8:1:2::1', 56)).not.toBe(clientKeyOf('2001:db8:1:1ff::1', 56));
  expect(clientKeyOf('2001:db8::1', 128)).not.toBe(clientKeyOf('2001:db8::2', 128));
});

test('something that is not an address is its own key', () => {
  expect(clientKeyOf('unknown', 64)).toBe('unknown');
});
