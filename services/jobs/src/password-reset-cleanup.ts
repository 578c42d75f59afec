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

/** Whether a job names the window identity recorded for its reset. */
function sameWindow(reset: identityV1.PasswordReset, job: PasswordResetJob): boolean {
  return (
    reset.resetAt?.getTime() === new Date(job.reset_at).getTime() &&
    reset.methodsAddedAfter?.getTime() === new Date(job.methods_added_after).getTime()
  );
}

/**
 * Identity's `user.reset`: a password reset proved only the mailbox, so the
 * passkeys and provider links added in the window before it, which the
 * reset took back in identity's credential ledger, are removed by their
 * units (the gateway already asked when it answered; the units answer the
 * same for the same reset), then the reset notice names what went and
 * what stays. It retries for the cleanup window: an intruder's passkey must
 * not outlive a dependency's outage.
 *
 * The bus is not trusted on its own with a removal (docs/security.md, "A
 * compromised unit"): identity confirms that it made this reset of this
 * account, with the window the job names, and the units remove only what
 * the ledger says the reset took back. A job identity does not confirm
 * removes nothing and mails nothing.
 */
export function passwordResetCleanupJob(deps: PasswordResetCleanupDeps): JobDefinition<PasswordResetJob> {
  return {
    name: 'password_reset',
    subject: jobSubjects.passwordReset,
    schema: passwordResetJobSchema,
    async handle(job, context) {
      const { reset } = await deps.identity.getPasswordReset({ userId: job.user_id, resetId: job.reset_id }, context);
      if (!reset?.resetAt || !reset.methodsAddedAfter || !sameWindow(reset, job)) {
        // A deleted account forgets its resets: its ways in go with the account cleanup.
        if (!(await findAccount(deps.identity, job.user_id, context))) return 'superseded';
        context.logger.warn({ user_id: job.user_id, reset_id: job.reset_id }, 'user.reset that identity did not make; nothing removed');
        return 'refused';
      }
      const named = { userId: reset.userId, resetId: reset.resetId };
      const [passkeys, connections] = await Promise.all([
        deps.passkeys.removeRecentPasskeys(named, context),
        deps.oauth.removeRecentConnections(named, context),
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
