import { createHash } from 'node:crypto';
import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * The policy of every answer the provider gives: nothing loads from
 * anywhere, no framing, no base URL; the inline script or style of a page
 * is allowed by its hash (`allowInline`), as oidc-provider itself does for
 * its form_post page once a policy is set. No form-action: the logout
 * confirmation and form_post answers post across origins, and Chromium
 * applies form-action to the redirects that follow too.
 */
const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The gateway's headers on the provider's answers, which Fastify does not
 * send for it (provider-mount.ts hands the raw request over): no type
 * sniffing, no framing, no referrer, and the content security policy.
 */
export function securePages(ctx: { set(field: string, value: string): void }): void {
  ctx.set('content-security-policy', CONTENT_SECURITY_POLICY);
  ctx.set('x-content-type-options', 'nosniff');
  ctx.set('x-frame-options', 'DENY');
  ctx.set('referrer-policy', 'no-referrer');
  ctx.set('cross-origin-opener-policy', 'same-origin');
}

/** Adds the hash of an inline script or style to the answer's policy, and answers the text. */
function allowInline(ctx: KoaContextWithOIDC, directive: 'script-src' | 'style-src', text: string): string {
  const policy = ctx.response.get('content-security-policy');
  const hash = `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  if (policy) ctx.set('content-security-policy', policy.replace(new RegExp(`(${directive} [^;]*)`), `$1 ${hash}`));
  return text;
}

/** Text safe inside HTML. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font:inherit;padding:.5rem 1rem}';
const SUBMIT_FIRST_FORM = 'document.forms[0].submit()';

function page(ctx: KoaContextWithOIDC, title: string, body: string): void {
  ctx.type = 'html';
  ctx.set('cache-control', 'no-store');
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${allowInline(ctx, 'style-src', STYLE)}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/**
 * The few pages the provider itself shows; everything a user fills in is
 * the web app's (docs/oidc.md, "The interaction").
 */
export const providerPages = {
  /**
   * RP-initiated logout: with a valid id_token_hint of this very session the
   * browser signs out without asking (the form submits itself); otherwise
   * the user confirms.
   */
  async logout(ctx: KoaContextWithOIDC, form: string): Promise<void> {
    const hint = ctx.oidc.entities.IdTokenHint as { payload?: { sid?: unknown } } | undefined;
    if (hint?.payload?.sid !== undefined && hint.payload.sid === ctx.oidc.session?.uid) {
      const automatic = form.replace('</form>', '<input type="hidden" name="logout" value="yes"/></form>');
      page(
        ctx,
        'Signing out',
        `${automatic}<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript><script>${allowInline(ctx, 'script-src', SUBMIT_FIRST_FORM)}</script>`,
      );
      return;
    }
    const client = ctx.oidc.client;
    const who = client ? ` from ${escapeHtml(String(client.clientName ?? client.clientId))}` : '';
    page(
      ctx,
      'Sign out',
      `${form}<p>Do you want to sign out of Latchkey${who}?</p><button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button> <button type="submit" form="op.logoutForm">Stay signed in</button>`,
    );
  },
  signedOut(publicAppUrl: string) {
    return async (ctx: KoaContextWithOIDC): Promise<void> => {
      page(ctx, 'Signed out', `<p>You are signed out.</p><p><a href="${escapeHtml(publicAppUrl)}/">Back to Latchkey</a></p>`);
    };
  },
  /** An error the provider cannot send back to a client (no valid redirect URI): a plain page, no details of the request. */
  error(publicAppUrl: string) {
    return async (ctx: KoaContextWithOIDC, out: { error?: string; error_description?: string }): Promise<void> => {
      page(
        ctx,
        'Sign-in could not continue',
        `<p>${escapeHtml(out.error ?? 'error')}: ${escapeHtml(out.error_description ?? '')}</p><p><a href="${escapeHtml(publicAppUrl)}/">Back to Latchkey</a></p>`,
      );
    };
  },
};
