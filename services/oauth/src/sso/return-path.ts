import { AppError } from '@latchkey/errors';

const MAX_RETURN_PATH_LENGTH = 512;
/**
 * A path of the web app: one leading "/" not followed by another (a
 * browser reads "//host" as another site), no "\" anywhere (browsers read
 * it as "/"), and only printable ASCII without spaces, as a URL's path is
 * encoded.
 */
const RETURN_PATH = /^\/(?!\/)[\x21-\x5b\x5d-\x7e]*$/;

/**
 * Where an SSO sign-in goes once it succeeds (docs/sso.md, "Signing in"),
 * kept with the request this browser started: only a relative path of the
 * web app, which the gateway puts after PUBLIC_APP_URL, so never another
 * site. Empty: the web app's home.
 */
export function requireReturnPath(value: string): string {
  if (value === '') return '';
  if (value.length > MAX_RETURN_PATH_LENGTH || !RETURN_PATH.test(value)) {
    throw AppError.validation([{ field: 'return_to', message: 'must be a path of the web app, starting with a single /' }]);
  }
  return value;
}
