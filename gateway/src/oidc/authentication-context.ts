import { isMultiFactor, type AuthenticationMethod } from '../sessions/session-store';

/** The `acr` of a sign-in with one factor. */
export const ACR_SINGLE_FACTOR = 'urn:latchkey:acr:sfa';
/** The `acr` of a multi-factor sign-in (a second factor, or a passkey with user verification); clients may ask for it. */
export const ACR_MULTI_FACTOR = 'urn:latchkey:acr:mfa';

/** The `acr` a session's methods prove. */
export function acrOf(methods: readonly AuthenticationMethod[]): string {
  return isMultiFactor(methods) ? ACR_MULTI_FACTOR : ACR_SINGLE_FACTOR;
}

/** Whether a client asks for a multi-factor sign-in: `require_mfa` in its entry, or `acr_values` naming it. */
export function requiresMultiFactor(requireMfa: unknown, acrValues: unknown): boolean {
  return requireMfa === true || (typeof acrValues === 'string' && acrValues.split(' ').includes(ACR_MULTI_FACTOR));
}
