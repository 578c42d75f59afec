/** Stops the containers the global setup started, if it started any. */
export default async function globalTeardown(): Promise<void> {
  const containers = (globalThis as { __latchkeyContainers?: { stop(): Promise<unknown> }[] }).__latchkeyContainers ?? [];
  await Promise.all(containers.map((c) => c.stop()));
}
