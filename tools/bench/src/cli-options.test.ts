import { parseCliOptions } from './cli-options';

describe('parseCliOptions()', () => {
  it('defaults to every scenario for 10 seconds', () => {
    const options = parseCliOptions([], '/repo/bench/results');
    expect(options).toMatchObject({
      durationSeconds: 10,
      rounds: 5,
      warmupSeconds: 2,
      scenarios: [
        'me',
        'me-org',
        'introspect',
        'org-check',
        'token',
        'oidc-userinfo',
        'oidc-introspect',
        'oidc-auth',
        'oidc-code',
        'oidc-refresh',
        'post-get',
        'post-list',
        'login',
        'post-create',
        'org-members',
        'scim-users',
        'search',
      ],
      connections: 10,
      users: 16,
      posts: 2000,
      searchPosts: 1_000_000,
      orgMembers: 10_000,
      webhookEvents: 10_000,
      jsonOnly: false,
      resultsDir: '/repo/bench/results',
    });
  });

  it('takes scenarios in their run order, a duration, no warm-up and JSON only', () => {
    const options = parseCliOptions(['--scenarios', 'login, me', '--duration', '5', '--warmup', '0', '--json-only'], '/r');
    expect(options).toMatchObject({ scenarios: ['me', 'login'], durationSeconds: 5, warmupSeconds: 0, jsonOnly: true });
    expect(parseCliOptions(['--scenarios', 'org-members', '--org-members', '500'], '/r')).toMatchObject({ scenarios: ['org-members'], orgMembers: 500 });
    expect(parseCliOptions(['--scenarios', 'webhooks', '--webhook-events', '1000', '--webhook-rate', '25'], '/r')).toMatchObject({
      scenarios: ['webhooks'],
      webhookEvents: 1000,
      webhookRate: 25,
    });
  });

  it('names what is wrong', () => {
    expect(() => parseCliOptions(['--scenarios', 'me,logout'], '/r')).toThrow(/unknown logout/);
    expect(() => parseCliOptions(['--duration', 'ten'], '/r')).toThrow(/--duration/);
    expect(() => parseCliOptions(['--connections', '2.5'], '/r')).toThrow(/--connections/);
    expect(() => parseCliOptions(['--org-members', '0'], '/r')).toThrow(/--org-members/);
    expect(() => parseCliOptions(['--fast'], '/r')).toThrow();
  });
});
