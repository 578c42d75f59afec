import { deleteContentJobSchema, indexPostJobSchema, jobSubjects, mailJobSchema, userDeletedJobSchema } from './index';

const postId = '0b9f5a34-6a8f-4a43-9a1c-2d1f6f4f7b10';

test('subjects are relative: the installation prefix is added by the relay', () => {
  for (const subject of Object.values(jobSubjects)) expect(subject).toMatch(/^jobs\.[a-z]+\.[a-z]+$/);
});

test('a mail job is one of the templates, and a token mail needs its token', () => {
  expect(mailJobSchema.safeParse({ template: 'verify_email', to: 'a@example.com', handle: 'ann', token: 'x'.repeat(43) }).success).toBe(true);
  expect(mailJobSchema.safeParse({ template: 'verify_email', to: 'a@example.com', handle: 'ann' }).success).toBe(false);
  expect(mailJobSchema.safeParse({ template: 'welcome', to: 'a@example.com', handle: 'ann' }).success).toBe(false);
  expect(mailJobSchema.safeParse({ template: 'security_notice', to: 'a@example.com', handle: 'ann', notice: 'totp_enabled' }).success).toBe(true);
  expect(mailJobSchema.safeParse({ template: 'security_notice', to: 'a@example.com', handle: 'ann', notice: 'unknown' }).success).toBe(false);
  expect(mailJobSchema.safeParse({ template: 'reset_password', to: 'not an address', handle: 'ann', token: 'x'.repeat(43) }).success).toBe(false);
});

test('post jobs carry a positive version, so the worker can order redeliveries', () => {
  const job = { post_id: postId, version: 1, title: 'Hello', storage_key: `posts/${postId}`, author_id: postId };
  expect(indexPostJobSchema.parse(job)).toEqual(job);
  expect(indexPostJobSchema.safeParse({ ...job, version: 0 }).success).toBe(false);
  expect(deleteContentJobSchema.safeParse({ post_id: postId, storage_key: `posts/${postId}`, version: 2 }).success).toBe(true);
  expect(deleteContentJobSchema.safeParse({ post_id: 'nope', storage_key: `posts/${postId}`, version: 2 }).success).toBe(false);
});

test('an account deletion names the user by id', () => {
  expect(userDeletedJobSchema.safeParse({ user_id: postId }).success).toBe(true);
  expect(userDeletedJobSchema.safeParse({ user_id: '' }).success).toBe(false);
});
