import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startS3Store } from './s3-store';

describe('startS3Store', () => {
  it('serves the configured bucket path-style and keeps its data in the directory', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's3-store-'));
    const store = await startS3Store({ directory: path.join(dir, 's3'), port: 0, bucket: 'latchkey-posts' });
    try {
      expect(store.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const listing = await fetch(`${store.endpoint}/latchkey-posts`);
      expect(listing.status).toBe(200);
      expect(await listing.text()).toContain('<Name>latchkey-posts</Name>');
      expect((await fetch(`${store.endpoint}/other-bucket`)).status).toBe(404);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
