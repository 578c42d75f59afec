import { writeFileSync } from 'node:fs';
import { signedInAccount } from '../support/accounts';
import { startE2eStack } from '../support/e2e-stack';
import { startTopology } from '../support/topology';
jest.setTimeout(300_000);
it('probe', async () => {
  const topology = await startTopology({ postgres: true, nats: true });
  const stack = await startE2eStack('probe', {}, { topology: topology.addresses });
  const author = await signedInAccount(stack, 'probe');
  const created = await author.client.post<{ id: string }>('/v0/posts', { title: 'a', content: 'b' });
  const before = (await author.client.get(`/v0/posts/${created.body.id}`)).status;
  const mark = stack.processes.get('posts')!.output().length;
  await topology.postgres!.primary.restart();
  const after: string[] = [];
  for (let i = 0; i < 20; i += 1) {
    const r = await author.client.get(`/v0/posts/${created.body.id}`);
    const l = await author.client.get(`/v0/posts?limit=5`);
    const c = await author.client.post('/v0/posts', { title: 'c', content: 'd' });
    after.push(`${r.status} ${l.status} ${c.status}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  writeFileSync('/tmp/td-probe/out.txt', `${created.status} ${before} | ${after.join(', ')}\n` + stack.processes.get('posts')!.output().slice(mark).split('\n').slice(-60).map((l) => l.slice(0, 400)).join('\n'));
  await stack.destroy();
  await topology.stop();
});
