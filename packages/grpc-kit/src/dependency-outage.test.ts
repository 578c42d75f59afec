import { isDependencyOutage } from './dependency-outage';

/** A driver's error as pg, nats.js and Node's net module raise them: a message and a code. */
function failure(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('isDependencyOutage()', () => {
  it.each([
    ['a refused connection', failure('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['PostgreSQL out of connections', failure('sorry, too many clients already', '53300')],
    ['PostgreSQL out of memory', failure('out of memory', '53200')],
    ['PostgreSQL restarting', failure('terminating connection due to administrator command', '57P01')],
    ['a statement out of time', failure('canceling statement due to statement timeout', '57014')],
    ['a lost connection', failure('connection failure', '08006')],
    ['a deadlock the server broke', failure('deadlock detected', '40P01')],
    ['a serialization failure', failure('could not serialize access due to concurrent update', '40001')],
  ])('counts %s as an outage', (_what, error) => {
    expect(isDependencyOutage(error)).toBe(true);
    expect(isDependencyOutage(new Error('wrapped', { cause: error }))).toBe(true);
  });

  it.each([
    ['a unique violation', failure('duplicate key value', '23505')],
    ['a syntax error', failure('syntax error at or near "SELEC"', '42601')],
    ['a plain bug', new TypeError('Cannot read properties of undefined')],
  ])('does not count %s', (_what, error) => {
    expect(isDependencyOutage(error)).toBe(false);
  });
});

const named = (name: string, message: string): Error => Object.assign(new Error(message), { name });

describe('isDependencyOutage() on the clients of production engines', () => {
  it.each([
    ['pg giving up on a statement outside a transaction', new Error('Query read timeout')],
    ['a pg connection the server ended, used again', new Error('Client was closed and is not queryable')],
    ['a Redis Cluster none of whose nodes answers', named('ClusterAllFailedError', 'Failed to refresh slots cache.')],
    ['a Redis Cluster moving its slots', new Error('Too many Cluster redirections. Last error: Error: MOVED 1 127.0.0.1:7000')],
    ['a Redis Cluster without a master for a slot', named('ReplyError', 'CLUSTERDOWN The cluster is down')],
    ['a demoted Redis master', named('ReplyError', "READONLY You can't write against a read only replica.")],
  ])('is true for %s', (_what, error) => {
    expect(isDependencyOutage(error)).toBe(true);
  });

  it('is false for a cross-slot command: that is a bug of ours, not an outage', () => {
    expect(isDependencyOutage(named('ReplyError', "CROSSSLOT Keys in request don't hash to the same slot"))).toBe(false);
  });
});
