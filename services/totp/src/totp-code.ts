import { generateSync, generateURI, ScureBase32Plugin, verifySync } from 'otplib';

/**
 * The parameters every authenticator app supports (RFC 6238 defaults):
 * HMAC-SHA-1, 6 digits, 30-second steps counted from the Unix epoch, and one
 * step of clock drift accepted either side, as RFC 6238 §5.2 recommends
 * ("at most one time step is allowed as the network delay").
 */
export const totpParameters = {
  algorithm: 'sha1',
  digits: 6,
  periodSeconds: 30,
  driftSteps: 1,
} as const;

/** A code as users type it: exactly six digits (docs/api.md, "Validation rules"). */
export const TOTP_CODE_PATTERN = /^\d{6}$/;

const base32 = new ScureBase32Plugin();

/** RFC 4648 base32 without padding, as the Key Uri Format expects. */
export function encodeSecret(secret: Uint8Array): string {
  return base32.encode(secret, { padding: false });
}

/** RFC 6238 §4.2: T = floor((Current Unix time - T0) / X), with T0 = 0 and X = 30 s. */
export function timeStepAt(unixTimeMs: number): number {
  return Math.floor(unixTimeMs / 1000 / totpParameters.periodSeconds);
}

/** The code an authenticator shows at `unixTimeMs`. */
export function generateTotp(secret: Uint8Array, unixTimeMs: number, digits: 6 | 8 = totpParameters.digits): string {
  return generateSync({
    secret,
    epoch: Math.floor(unixTimeMs / 1000),
    algorithm: totpParameters.algorithm,
    digits,
    period: totpParameters.periodSeconds,
  });
}

/**
 * The URI authenticator apps read from the QR code (Google Authenticator's
 * Key Uri Format): label `Issuer:account`, and the issuer repeated as a
 * parameter for apps that ignore the label's prefix.
 */
export function otpauthUri(issuer: string, accountEmail: string, secret: Uint8Array): string {
  return generateURI({
    issuer,
    label: accountEmail,
    secret: encodeSecret(secret),
    algorithm: totpParameters.algorithm,
    digits: totpParameters.digits,
    period: totpParameters.periodSeconds,
  });
}

/**
 * The time step a code belongs to, or undefined when it is not acceptable.
 * Acceptable means: the code of the current step or of one step either side
 * (clock drift), and a step later than `lastUsedStep`, the step last accepted
 * for this user. RFC 6238 §5.2: "the verifier MUST NOT accept the second
 * attempt of the OTP after the successful validation has been issued for
 * the first OTP"; otplib's `afterTimeStep` also refuses an older code seen
 * after a newer one.
 *
 * This only decides; callers make it stick with a conditional UPDATE of
 * `last_used_step`, so that two requests racing with one code cannot both win.
 */
export function matchTimeStep(
  secret: Uint8Array,
  code: string,
  options: { readonly nowMs: number; readonly lastUsedStep?: number | null | undefined },
): number | undefined {
  if (!TOTP_CODE_PATTERN.test(code)) return undefined;
  const result = verifySync({
    secret,
    token: code,
    epoch: Math.floor(options.nowMs / 1000),
    epochTolerance: totpParameters.driftSteps * totpParameters.periodSeconds,
    algorithm: totpParameters.algorithm,
    digits: totpParameters.digits,
    period: totpParameters.periodSeconds,
    ...(options.lastUsedStep === null || options.lastUsedStep === undefined ? {} : { afterTimeStep: options.lastUsedStep }),
  });
  // The functional API answers for HOTP or TOTP; only a TOTP result has a time step.
  return result.valid && 'timeStep' in result ? result.timeStep : undefined;
}
