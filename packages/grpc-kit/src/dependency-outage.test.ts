import { isDependencyOutage } from './dependency-outage';

const named = (name: string, message: string): Error => Object.assign(new Error(message), { name });

describe('isDependencyOutage()', () => {
  it.each([
    ['pg giving up on a statement outside a transaction', new Error('Query read timeout')],
    ['a pg connection the server ended, used again', new Error('Client was closed and is not queryable')],
    ['a Redis Cluster none of whose nodes answers', named('ClusterAllFailedError', 'Failed to refresh slots cache.')],
    ['a Redis Cluster moving its slots', new Error('Too many Cluster redirections. Last error: Error: MOVED 1 127.0.0.1:7000')],
    ['a Redis Cluster without a master for a slot', named('ReplyError', 'CLUSTERDOWN The cluster is down')],
    ['a demoted Redis master', named('ReplyError', "READONLY You can't write against a read only replica.")],
    ['PostgreSQL at max_connections', Object.assign(new Error('sorry, too many clients already'), { code: '53300' })],
  ])('is true for %s', (_what, error) => {
    expect(isDependencyOutage(error)).toBe(true);
  });

  it('is false for a cross-slot command: that is a bug of ours, not an outage', () => {
    expect(isDependencyOutage(named('ReplyError', "CROSSSLOT Keys in request don't hash to the same slot"))).toBe(false);
  });
});
