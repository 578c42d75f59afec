export { generateOpaqueToken, hashOpaqueToken, opaqueTokenDigest, sameTokenHash } from './opaque-token';
