/**
 * At most `perEndpoint` deliveries to one endpoint at once in this process:
 * an endpoint that answers slowly or not at all holds that many of the
 * worker's slots and no more, and every other endpoint's messages go on
 * (docs/decisions/0006-webhooks.md, "Per-endpoint concurrency").
 */
export class EndpointSlots {
  private readonly taken = new Map<string, number>();

  constructor(private readonly perEndpoint: number) {}

  /** A slot for `endpointId` and the function that gives it back, or undefined while the endpoint has none free. */
  take(endpointId: string): (() => void) | undefined {
    const held = this.taken.get(endpointId) ?? 0;
    if (held >= this.perEndpoint) return undefined;
    this.taken.set(endpointId, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.taken.get(endpointId) ?? 1) - 1;
      if (left === 0) this.taken.delete(endpointId);
      else this.taken.set(endpointId, left);
    };
  }
}
