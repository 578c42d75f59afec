/** Metadata keys this project puts on gRPC calls and trailers. */
export const metadataKeys = {
  requestId: 'x-request-id',
  /** The person a tool acts for, percent-encoded (operator.ts). */
  operator: 'latchkey-operator',
  errorCode: 'latchkey-error-code',
  errorFields: 'latchkey-error-fields',
  retryAfter: 'latchkey-retry-after',
  orgSlug: 'latchkey-error-org-slug',
} as const;
