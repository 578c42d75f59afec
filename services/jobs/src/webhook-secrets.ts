import { createHash, type KeyObject } from 'node:crypto';
import { openSealed } from '@latchkey/secret-box';

/** Opened secrets kept: an X25519 agreement per attempt would cost more than the HTTP request to a busy endpoint. */
const MAX_KEPT = 10_000;

/**
 * Opens the endpoints' sealed secrets with the worker's private key
 * (packages/secret-box, openSealed), each bound to its endpoint's id.
 * Opened secrets are kept by the digest of their sealed form, so that a
 * rotation (a new sealed secret) is opened afresh and nothing stale signs.
 */
export class WebhookSecrets {
  private readonly opened = new Map<string, string>();

  constructor(private readonly privateKey: KeyObject) {}

  open(endpointId: string, sealed: Uint8Array): string {
    const digest = createHash('sha256').update(endpointId).update(sealed).digest('base64');
    const kept = this.opened.get(digest);
    if (kept !== undefined) return kept;
    const secret = openSealed(this.privateKey, Buffer.from(sealed), `webhook:${endpointId}`).toString('utf8');
    if (this.opened.size >= MAX_KEPT) this.opened.delete(this.opened.keys().next().value!);
    this.opened.set(digest, secret);
    return secret;
  }
}
