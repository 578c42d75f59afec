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
