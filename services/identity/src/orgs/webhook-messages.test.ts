import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Webhooks see an organisation's change only when its event goes through
 * queueOrgEvent (webhook-messages.ts), which fans it out to the endpoints in
 * the same transaction. An `org.*` event queued with queueEvent directly
 * would reach JetStream and no endpoint.
 */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

it('queues every org.* event of identity through queueOrgEvent', () => {
  const root = path.join(__dirname, '..');
  const direct = sources(root).filter((file) => /\bqueueEvent\(\s*\w+,\s*'org\./.test(readFileSync(file, 'utf8')));
  expect(direct.map((file) => path.relative(root, file))).toEqual([]);
  const through = sources(root).filter((file) => /\bqueueOrgEvent\(\s*\w+,\s*'org\./.test(readFileSync(file, 'utf8')));
  // Organisations, members, invitations, SSO members and SCIM at least: the guard above has something to guard.
  expect(through.length).toBeGreaterThanOrEqual(5);
});
