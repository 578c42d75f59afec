/** Metadata keys this project puts on gRPC calls and trailers. */
export const metadataKeys = {
  requestId: 'x-request-id',
  /** The person a tool acts for, percent-encoded (operator.ts). */
  operator: 'latchkey-operator',
  /** The address of the end user's client as the gateway saw it, for audit entries (docs/audit.md). */
  clientIp: 'latchkey-client-ip',
  /** The end user's User-Agent, percent-encoded, for audit entries (docs/audit.md). */
  clientUserAgent: 'latchkey-client-user-agent',
  errorCode: 'latchkey-error-code',
  errorFields: 'latchkey-error-fields',
  retryAfter: 'latchkey-retry-after',
  orgSlug: 'latchkey-error-org-slug',
} as const;
