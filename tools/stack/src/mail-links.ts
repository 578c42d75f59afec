/**
 * Every `http(s)://…?token=…` link of a mail's text part, in order and
 * without repeats (docs/api.md, "Links and tokens": verify-email, reset-password,
 * confirm-email-change). A link ends at whitespace or at a character that
 * cannot be part of a URL in plain text; sentence punctuation right after it
 * is not part of it.
 */
export function extractTokenLinks(text: string): string[] {
  const links: string[] = [];
  for (const [candidate] of text.matchAll(/https?:\/\/[^\s<>"'`]+/g)) {
    const link = candidate.replace(/[.,;:!?)\]}]+$/, '');
    if (hasTokenParameter(link) && !links.includes(link)) links.push(link);
  }
  return links;
}

function hasTokenParameter(link: string): boolean {
  try {
    return new URL(link).searchParams.has('token');
  } catch {
    return false;
  }
}

/**
 * A file name stem for a mail received at `receivedAt` for `to`:
 * `2025-01-31T09-15-02.123Z-ada@example.com`. The ISO time sorts; its colons
 * become dashes because some file systems (and editors) refuse them.
 */
export function mailFileStem(receivedAt: Date, to: string): string {
  const time = receivedAt.toISOString().replace(/:/g, '-');
  const recipient = to.toLowerCase().replace(/[^a-z0-9@._+-]/g, '_').slice(0, 100) || 'unknown';
  return `${time}-${recipient}`;
}
