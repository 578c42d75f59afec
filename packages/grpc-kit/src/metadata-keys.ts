/** Metadata keys this project puts on gRPC calls and trailers. */
export const metadataKeys = {
  requestId: 'x-request-id',
  errorCode: 'latchkey-error-code',
  errorFields: 'latchkey-error-fields',
  retryAfter: 'latchkey-retry-after',
} as const;
