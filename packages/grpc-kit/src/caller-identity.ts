import type { PeerCertificate } from 'node:tls';

/**
 * How a server names its callers from their client certificates:
 * - `common-name`: the units, whose certificates (one CA, one per unit)
 *   carry the unit's name as Subject CN;
 * - `subject-alt-name`: the platform's clients (services beside Latchkey,
 *   operators' tools), whose certificates come from a CA of their own and
 *   name them by a DNS or URI subject alternative name, as cert-manager,
 *   SPIFFE and service meshes issue them.
 */
export type CallerIdentity = 'common-name' | 'subject-alt-name';

/**
 * Who may call: every method the same list, or a list per RPC name
 * (`FindUser`) where `*` stands for every method.
 */
export type CallerAllowList = readonly string[] | Readonly<Record<string, readonly string[]>>;

/** Every method a caller may be allowed, named as in the proto (`FindUser`), and `*`. */
export const EVERY_METHOD = '*';

const SAN_ENTRY = /(DNS|URI):("(?:[^"\\]|\\.)*"|[^,]*)(?:,\s*|$)/g;

/**
 * The DNS and URI names of a certificate's subjectAltName as Node prints it
 * (`DNS:a.example, URI:spiffe://example.org/billing`); Node quotes a value
 * holding a comma or quote as a JSON string.
 */
export function subjectAltNamesOf(subjectaltname: string | undefined): string[] {
  if (!subjectaltname) return [];
  const names: string[] = [];
  for (const [, , raw] of subjectaltname.matchAll(SAN_ENTRY)) {
    if (raw === undefined || raw === '') continue;
    names.push(raw.startsWith('"') ? (JSON.parse(raw) as string) : raw);
  }
  return names;
}

/** The names a caller's certificate gives it under `identity`; none without a certificate. */
export function callerNamesOf(certificate: PeerCertificate | undefined, identity: CallerIdentity): string[] {
  if (!certificate) return [];
  if (identity === 'subject-alt-name') return subjectAltNamesOf(certificate.subjectaltname);
  const commonName: unknown = certificate.subject?.CN;
  return typeof commonName === 'string' ? [commonName] : [];
}

/** The names allowed to call RPC `method` (the last part of its path, `FindUser`). */
export function allowedCallersOf(list: CallerAllowList, method: string): readonly string[] {
  if (Array.isArray(list)) return list as readonly string[];
  const perMethod = list as Readonly<Record<string, readonly string[]>>;
  return [...(perMethod[EVERY_METHOD] ?? []), ...(perMethod[method] ?? [])];
}

/**
 * The RPC names a per-method list names that `definition` has no method for
 * (`*` is every method); none for a list that is the same for every method.
 */
export function unknownMethodsOf(list: CallerAllowList | undefined, definition: Readonly<Record<string, { readonly path: string }>>): string[] {
  if (list === undefined || Array.isArray(list)) return [];
  const known = new Set(Object.values(definition).map((method) => method.path.slice(method.path.lastIndexOf('/') + 1)));
  return Object.keys(list).filter((name) => name !== EVERY_METHOD && !known.has(name));
}
