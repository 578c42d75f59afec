import { headers, type JetStreamClient, type JetStreamManager, type StoredMsg } from 'nats';
import { topology } from '@latchkey/job-streams';

/** A parked job, as `jobs dlq list` shows it: never its payload, which may hold personal data. */
export interface DeadLetter {
  /** Its sequence in the dead-letter stream: what `jobs dlq replay` takes. */
  readonly seq: number;
  readonly subject: string;
  /** The job's id (its original Nats-Msg-Id), which the worker's logs name. */
  readonly jobId: string;
  readonly reason: string;
  readonly deliveries: number;
  readonly parkedAt: string;
}

function letterOf(message: StoredMsg): DeadLetter {
  return {
    seq: message.seq,
    subject: message.header.get('x-original-subject') || message.subject,
    jobId: message.header.get('x-original-msg-id'),
    reason: message.header.get('x-dead-letter-reason'),
    deliveries: Number(message.header.get('x-deliveries') || 0),
    parkedAt: message.time.toISOString(),
  };
}

/**
 * The dead-letter stream of an installation (docs/operations.md, "Dead
 * letters"): jobs that failed every delivery or never parsed, kept for a
 * week with why they were parked.
 */
export class DeadLetters {
  private readonly names;

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    subjectPrefix: string,
  ) {
    this.names = topology(subjectPrefix);
  }

  async count(): Promise<number> {
    return (await this.jsm.streams.info(this.names.deadLetterStream)).state.messages;
  }

  async list(): Promise<DeadLetter[]> {
    const { state } = await this.jsm.streams.info(this.names.deadLetterStream);
    const letters: DeadLetter[] = [];
    if (state.messages === 0) return letters;
    for (let seq = state.first_seq; seq <= state.last_seq; seq += 1) {
      const message = await this.jsm.streams.getMessage(this.names.deadLetterStream, { seq }).catch(() => undefined);
      if (message) letters.push(letterOf(message));
    }
    return letters;
  }

  /** One parked job; throws when the stream holds no message `seq`. */
  async find(seq: number): Promise<DeadLetter> {
    return letterOf(await this.jsm.streams.getMessage(this.names.deadLetterStream, { seq }));
  }

  /**
   * Puts a parked job back on its original subject, as a new job (a fresh
   * message id, so that the duplicate window of the first one does not
   * drop it), then removes it from the dead-letter stream. Answers the
   * subject it went to.
   */
  async replay(seq: number): Promise<string> {
    const message = await this.jsm.streams.getMessage(this.names.deadLetterStream, { seq });
    const subject = message.header.get('x-original-subject');
    if (!subject) throw new Error(`dead letter ${seq} has no x-original-subject`);
    const requestId = message.header.get('x-request-id');
    const h = headers();
    if (requestId) h.set('x-request-id', requestId);
    await this.js.publish(subject, message.data, { msgID: `replay-${seq}-${message.header.get('x-original-msg-id')}`, headers: h });
    await this.jsm.streams.deleteMessage(this.names.deadLetterStream, seq);
    return subject;
  }
}
