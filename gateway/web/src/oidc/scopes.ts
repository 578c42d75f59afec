/** What each OpenID scope lets an application do, in the words of the consent page. */
const descriptions: Record<string, string> = {
  openid: 'Know who you are on Latchkey',
  email: 'See your email address',
  profile: 'See your username',
  offline_access: 'Stay signed in while you are away',
};

export function describeScope(scope: string): string {
  return descriptions[scope] ?? scope;
}
