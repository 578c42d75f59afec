import type { Metadata } from '@grpc/grpc-js';
import { metadataKeys } from './metadata-keys';
import type { ClientOfRequest } from './request-context';

/** Audit entries keep at most this much of a User-Agent: the rest tells an auditor nothing more. */
export const USER_AGENT_MAX_LENGTH = 512;
const IP_MAX_LENGTH = 64;

/**
 * The end user's client a caller named in a call's metadata
 * (metadataKeys.clientIp, clientUserAgent), or undefined when it named none.
 * A value that is not valid percent-encoding is kept as it came; both are
 * cut to a length an audit entry keeps.
 */
export function clientOf(metadata: Metadata): ClientOfRequest | undefined {
  const ip = metadata.get(metadataKeys.clientIp)[0];
  if (typeof ip !== 'string') return undefined;
  const sent = metadata.get(metadataKeys.clientUserAgent)[0];
  let userAgent = typeof sent === 'string' ? sent : '';
  try {
    userAgent = decodeURIComponent(userAgent);
  } catch {
    // Not percent-encoding: what came is what is kept.
  }
  return { ip: ip.slice(0, IP_MAX_LENGTH), userAgent: userAgent.slice(0, USER_AGENT_MAX_LENGTH) };
}
