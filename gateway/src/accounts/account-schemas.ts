import { z } from 'zod';
import { currentPasswordField, emailField, handleField, newEmailField, newPasswordField, tokenField } from '../http/fields';

export const registerBody = z.object({ handle: handleField, email: newEmailField, password: newPasswordField });
export const tokenBody = z.object({ token: tokenField });
export const emailBody = z.object({ email: emailField });
/** Fastify hands an absent body over as null. */
export const resendBody = z.object({ email: emailField.optional() }).nullish();
export const resetPasswordBody = z.object({ token: tokenField, new_password: newPasswordField });
export const changePasswordBody = z.object({ current_password: currentPasswordField, new_password: newPasswordField });
export const changeEmailBody = z.object({ current_password: currentPasswordField, new_email: newEmailField });

/**
 * What proves the caller may delete the account; which fields are needed
 * depends on the account. One without a password needs a recent
 * re-authentication instead (docs/api.md, "Deleting the account").
 */
export const deleteAccountBody = z
  .object({
    password: currentPasswordField.optional().describe('Required when the account has a password.'),
    code: z.string().max(32).optional().describe('A TOTP code or a backup code; required when TOTP is on.'),
  })
  .nullish();
