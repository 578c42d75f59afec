/**
 * Origins allowed to send state-changing requests: the app's own and those
 * configured. Browsers send `Origin` on such requests; a foreign one is a
 * cross-site request even if SameSite=Lax let the cookie through.
 */
export function allowedOrigins(publicAppUrl: string, extra: readonly string[]): Set<string> {
  const origins = new Set<string>([new URL(publicAppUrl).origin]);
  for (const value of extra) {
    try {
      origins.add(new URL(value).origin);
    } catch {
      throw new Error(`ALLOWED_ORIGINS entry is not a URL: ${value}`);
    }
  }
  return origins;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Requests without Origin (curl, servers) pass: they carry no ambient browser credentials. */
export function isForeignOrigin(method: string, origin: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (SAFE_METHODS.has(method) || origin === undefined) return false;
  return !allowed.has(origin);
}
