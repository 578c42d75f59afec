import { parseProcessList } from './bench-stack';

describe('parseProcessList()', () => {
  it('reads BENCH_PIDS as stack processes', () => {
    expect(parseProcessList('gateway=12, identity=34')).toEqual([
      { name: 'gateway', role: 'stack', pid: 12 },
      { name: 'identity', role: 'stack', pid: 34 },
    ]);
    expect(parseProcessList(undefined)).toEqual([]);
  });

  it('refuses an entry without a numeric pid', () => {
    expect(() => parseProcessList('gateway')).toThrow(/BENCH_PIDS/);
  });
});
