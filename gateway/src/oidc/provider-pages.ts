import type { KoaContextWithOIDC } from 'oidc-provider';

/** Text safe inside HTML. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function page(ctx: KoaContextWithOIDC, title: string, body: string): void {
  ctx.type = 'html';
  ctx.set('cache-control', 'no-store');
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font:inherit;padding:.5rem 1rem}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
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
      page(ctx, 'Signing out', `${automatic}<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript><script>document.forms[0].submit()</script>`);
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
  /** The web app's /device page takes user codes; the provider's own form only points there. */
  deviceInput(publicAppUrl: string) {
    return async (ctx: KoaContextWithOIDC): Promise<void> => {
      ctx.status = 303;
      ctx.redirect(`${publicAppUrl}/device`);
    };
  },
  deviceDone(publicAppUrl: string) {
    return async (ctx: KoaContextWithOIDC): Promise<void> => {
      ctx.status = 303;
      ctx.redirect(`${publicAppUrl}/device?done=1`);
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
