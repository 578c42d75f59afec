import { startBenchChild, type BenchChild } from './child-scripts';
import {
  receiversCollectedSchema,
  receiversCountSchema,
  receiversReadySchema,
  type ReceiversCollected,
  type ReceiversQuery,
  type ReceiversStart,
} from './webhook-receiver-messages';

const ANSWER_TIMEOUT_MS = 15_000;

/** The bench's side of webhook-receivers.ts: live endpoints in their own process, and a down one. */
export class WebhookReceivers {
  private queries = 0;

  private constructor(
    private readonly child: BenchChild,
    readonly liveUrls: readonly string[],
    readonly downUrl: string,
  ) {}

  static async start(live: number): Promise<WebhookReceivers> {
    const child = startBenchChild('webhook-receivers.js');
    try {
      const ready = child.receive(receiversReadySchema, ANSWER_TIMEOUT_MS);
      child.child.send({ type: 'start', live } satisfies ReceiversStart);
      const { liveUrls, downUrl } = await ready;
      return new WebhookReceivers(child, liveUrls, downUrl);
    } catch (error) {
      await child.stop(1_000);
      throw error;
    }
  }

  get pid(): number {
    return this.child.pid;
  }

  /** Distinct messages the live receivers have got so far. */
  async receivedMessages(): Promise<number> {
    const id = this.next();
    const answer = this.child.receive(receiversCountSchema.refine((message) => message.id === id), ANSWER_TIMEOUT_MS);
    this.child.child.send({ type: 'count', id } satisfies ReceiversQuery);
    return (await answer).messages;
  }

  async collect(): Promise<ReceiversCollected> {
    const id = this.next();
    const answer = this.child.receive(receiversCollectedSchema.refine((message) => message.id === id), ANSWER_TIMEOUT_MS);
    this.child.child.send({ type: 'collect', id } satisfies ReceiversQuery);
    return answer;
  }

  stop(): Promise<void> {
    return this.child.stop(2_000);
  }

  private next(): number {
    this.queries += 1;
    return this.queries;
  }
}
