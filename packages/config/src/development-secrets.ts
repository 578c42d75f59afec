/**
 * Secrets this repository publishes for development (the chart's
 * values.yaml, k8s/values-dev.yaml, the embedded S3 store of the tests):
 * anyone can read them, so a production process must not run with them.
 */
const PUBLISHED_SECRETS = new Set([
  // The chart's development TOTP key ("latchkey-dev-totp-key-not-secret").
  'bGF0Y2hrZXktZGV2LXRvdHAta2V5LW5vdC1zZWNyZXQ=',
  'latchkey-dev-secret',
  'S3RVER',
]);
/**
 * The private parts (`d`) of the chart's development signing keys, inside
 * AUTH_JWT_SIGNING_KEYS: the Ed25519 key's, and the first 43 characters
 * (258 bits) of the RSA key's, which name that key as surely as all of it.
 */
const PUBLISHED_SIGNING_KEYS = ['bkf76sntkX_Yd_Kln4T1NV8yABYvcF8sLLk_JTrHVlw', 'PMT7br9VFXt6a5dB0ZYdaMYP8VEtv3q5PmxkaNPk5Bx'];
/** The password of the development PostgreSQL and Redis, inside their URLs. */
const PUBLISHED_PASSWORD = 'latchkey';

function hasPublishedPassword(value: string): boolean {
  try {
    return decodeURIComponent(new URL(value).password) === PUBLISHED_PASSWORD;
  } catch {
    return false;
  }
}

/**
 * One problem per variable of `names` whose value is a published secret,
 * or a list holding one, or a URL with the published password. Messages
 * name the variable, never the value.
 */
export function developmentSecretProblems(environment: Readonly<Record<string, string | undefined>>, names: Iterable<string>): string[] {
  const problems: string[] = [];
  for (const name of names) {
    const value = environment[name];
    if (value === undefined) continue;
    const published =
      value.split(',').some((part) => PUBLISHED_SECRETS.has(part.trim())) || hasPublishedPassword(value) || PUBLISHED_SIGNING_KEYS.some((key) => value.includes(key));
    if (published) problems.push(`${name}: is a development secret published with Latchkey; production needs its own`);
  }
  return problems;
}
