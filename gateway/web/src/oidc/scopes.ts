/** What each OpenID scope lets an application do, in the words of the consent page. */
const descriptions: Record<string, string> = {
  openid: 'Know who you are on Latchkey',
  email: 'See your email address',
  profile: 'See your username',
  offline_access: 'Stay signed in while you are away',
  organization: 'See your role and permissions in the organisation it signs you in to',
  organizations: 'See the organisations you belong to, and your role in each',
};

export function describeScope(scope: string): string {
  return descriptions[scope] ?? scope;
}
