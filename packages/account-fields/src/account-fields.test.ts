import {
  HANDLE_PATTERN,
  isPasswordLengthValid,
  isUuid,
  normalizeEmail,
  normalizeHandle,
  normalizePassword,
  passwordLength,
  undeliverableEmailReason,
} from './account-fields';

test('handles are 3-32 characters of letters, digits and underscore, stored lower-cased', () => {
  for (const good of ['abc', 'A_b_9', 'x'.repeat(32)]) expect(HANDLE_PATTERN.test(good)).toBe(true);
  for (const bad of ['ab', 'x'.repeat(33), 'with space', 'dash-ed', 'émile']) expect(HANDLE_PATTERN.test(bad)).toBe(false);
  expect(normalizeHandle('Ann_B')).toBe('ann_b');
});

test('emails compare trimmed and lower-cased', () => {
  expect(normalizeEmail('  Ann@Example.COM ')).toBe('ann@example.com');
});

test('a new address must be able to receive mail: a local part of at most 64, a host name after the @', () => {
  for (const good of [`${'a'.repeat(64)}@example.com`, 'x@xn--bcher-kva.example', 'x@a-b.c0', `x@${'d'.repeat(63)}.io`]) {
    expect(undeliverableEmailReason(good)).toBeUndefined();
  }
  expect(undeliverableEmailReason(`${'a'.repeat(65)}@example.com`)).toMatch(/before the @/);
  for (const bad of ['x@localhost', 'x@-a.com', 'x@a-.com', 'x@a..com', `x@${'d'.repeat(64)}.com`, 'x@1.2.3.4', 'x@a_b.com', `x@${'abcdefghi.'.repeat(26)}com`]) {
    expect(undeliverableEmailReason(bad)).toMatch(/host name/);
  }
});

test('a password is measured in code points of its NFKC form', () => {
  // Full-width letters are the same password as ASCII ones.
  expect(normalizePassword('ｐａｓｓ')).toBe('pass');
  // Eight emoji are eight characters, though sixteen UTF-16 units.
  expect(passwordLength('😀'.repeat(8))).toBe(8);
  expect(isPasswordLengthValid('😀'.repeat(8))).toBe(true);
  expect(isPasswordLengthValid('seven!!')).toBe(false);
  expect(isPasswordLengthValid('x'.repeat(129))).toBe(false);
});

test('isUuid() takes an id of any version in either case, and nothing around or inside it', () => {
  for (const good of ['0192f1c4-7b2e-7c3d-8e4f-5a6b7c8d9e0f', '00000000-0000-4000-8000-000000000000', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11']) expect(isUuid(good)).toBe(true);
  for (const bad of ['', 'not-a-uuid', '0192f1c4-7b2e-7c3d-8e4f-5a6b7c8d9e0', ' 0192f1c4-7b2e-7c3d-8e4f-5a6b7c8d9e0f', '0192f1c47b2e7c3d8e4f5a6b7c8d9e0f', '0192f1c4-7b2e-7c3d-8e4f-5a6b7c8d9e0g']) {
    expect({ bad, uuid: isUuid(bad) }).toEqual({ bad, uuid: false });
  }
});
