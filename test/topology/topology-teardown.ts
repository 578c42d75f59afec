import type { RunningTopology } from '../support/topology';

/** Stops what topology-setup.ts started, by their processes. */
export default async function topologyTeardown(): Promise<void> {
  await (globalThis as { __latchkeyTopology?: RunningTopology }).__latchkeyTopology?.stop();
}
