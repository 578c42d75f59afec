import { connect, type NatsConnection } from 'nats';
import { ensureStreams, topology } from '@latchkey/job-streams';
import { uniqueName } from '@latchkey/test-kit';
import { sharedTopology } from '../support/topology';

/**
 * NATS_STREAM_REPLICAS on the topology project's 3-node NATS cluster: a
 * stream made with one replica (an install from before the cluster) gets
 * three at the next start, its messages kept.
 */
let nats: NatsConnection;

beforeAll(async () => {
  const urls = sharedTopology()?.natsUrls;
  if (!urls) throw new Error('runs in the topology project, on its NATS cluster (jest --selectProjects topology)');
  nats = await connect({ servers: urls.split(',') });
});

afterAll(async () => {
  await nats.close();
});

it('brings existing streams to the configured replicas at start, keeping their messages', async () => {
  const prefix = uniqueName('replicas').replace(/[^a-z0-9]/gi, '_').toLowerCase();
  const names = topology(prefix);
  const jsm = await nats.jetstreamManager();
  await ensureStreams(jsm, prefix, 1);
  expect((await jsm.streams.info(names.jobsStream)).config.num_replicas).toBe(1);
  await nats.jetstream().publish(names.subject('jobs.mail.send'), new TextEncoder().encode('{}'));

  await ensureStreams(jsm, prefix, 3);

  for (const stream of [names.jobsStream, names.deadLetterStream, names.eventsStream]) {
    const info = await jsm.streams.info(stream);
    expect({ stream, replicas: info.config.num_replicas }).toEqual({ stream, replicas: 3 });
    // Servers besides the leader that hold it (a moment after the change, the one it moved from may still be listed).
    expect(info.cluster?.replicas?.length).toBeGreaterThanOrEqual(2);
  }
  expect((await jsm.streams.info(names.jobsStream)).state.messages).toBe(1);
  // The cluster is the project's and goes with it; a delete it is too busy for now is no failure of this test.
  for (const stream of [names.jobsStream, names.deadLetterStream, names.eventsStream]) await jsm.streams.delete(stream).catch(() => undefined);
});
