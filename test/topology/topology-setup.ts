import { startTopology, type RunningTopology } from '../support/topology';

/**
 * Starts, once for the topology project, the engines its end-to-end suites
 * share: PostgreSQL with a streaming replica behind PgBouncer in
 * transaction mode, a 3-node NATS cluster and a Redis Cluster of 3 masters
 * and 3 replicas. Nothing stops or kills them but the teardown: the
 * failover suites start engines of their own.
 */
export default async function topologySetup(): Promise<void> {
  const topology = await startTopology({ postgres: true, nats: true, redis: 'cluster' });
  process.env.LATCHKEY_TOPOLOGY = JSON.stringify(topology.addresses);
  (globalThis as { __latchkeyTopology?: RunningTopology }).__latchkeyTopology = topology;
}
