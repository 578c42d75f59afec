import type { identityV1, oauthV1, passkeysV1 } from '@latchkey/contracts';
import type { ServiceClient } from '@latchkey/grpc-kit';
import { jobSubjects, passwordResetJobSchema, type PasswordResetJob } from '@latchkey/jobs-contract';
import { findAccount } from './account-lookup';
import type { JobDefinition } from './job-consumer';
import { sendEmail, type SendEmailDeps } from './send-email';

export interface PasswordResetCleanupDeps {
  readonly identity: ServiceClient<typeof identityV1.IdentityServiceService>;
  readonly passkeys: ServiceClient<typeof passkeysV1.PasskeysServiceService>;
  readonly oauth: ServiceClient<typeof oauthV1.OAuthServiceService>;
  readonly mail: SendEmailDeps;
}

const providerNames: Record<string, string> = { google: 'Google', github: 'GitHub' };

/** How the notice names a way in: a passkey by the name its owner gave it, a provider by its name. */
function describeMethods(passkeys: readonly string[], providers: readonly string[]): string[] {
  return [...passkeys.map((name) => `passkey "${name}"`), ...providers.map((provider) => providerNames[provider] ?? provider)];
}

/**
 * Identity's `user.reset`: a password reset proved only the mailbox, so the
 * passkeys and provider links added in the window before it are removed
 * (the gateway already did when it answered; the units answer the same for
 * the same reset), then the reset notice names what went and what stays.
 * It retries until done: an intruder's passkey must not outlive a
 * dependency's outage.
 */
export function passwordResetCleanupJob(deps: PasswordResetCleanupDeps): JobDefinition<PasswordResetJob> {
  return {
    name: 'password_reset',
    subject: jobSubjects.passwordReset,
    schema: passwordResetJobSchema,
    async handle(job, context) {
      const window = {
        userId: job.user_id,
        resetId: job.reset_id,
        addedAfter: new Date(job.methods_added_after),
        addedBefore: new Date(job.reset_at),
      };
      const [passkeys, connections] = await Promise.all([
        deps.passkeys.removeRecentPasskeys(window, context),
        deps.oauth.removeRecentConnections(window, context),
      ]);
      const account = await findAccount(deps.identity, job.user_id, context);
      // Deleted since: its data goes with the account cleanup, and its address is told of that.
      if (!account) return 'completed';
      return sendEmail(
        deps.mail,
        {
          template: 'security_notice',
          to: account.email,
          handle: account.handle,
          notice: 'password_reset',
          removed_methods: describeMethods(passkeys.removed, connections.removed),
          remaining_methods: describeMethods(passkeys.remaining, connections.remaining),
        },
        context,
      );
    },
    redactForDeadLetter: (payload) => payload,
    retries: 'cleanup_window',
  };
}
