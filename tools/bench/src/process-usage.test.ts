import { cpuMillisecondsBetween, parseCpuTicks, parseMemoryUsage, readCpuTicks, readMemoryUsage } from './process-usage';

describe('parseCpuTicks()', () => {
  it('adds utime and stime, counting fields from the last parenthesis of the command name', () => {
    const stat = '4242 (node (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 1234 56 0 0 20 0 11 0 100 1000000 5000';
    expect(parseCpuTicks(stat)).toBe(1234 + 56);
  });

  it('refuses text that is not a stat line', () => {
    expect(() => parseCpuTicks('no parenthesis here')).toThrow(/stat/);
  });
});

describe('parseMemoryUsage()', () => {
  it('reads VmHWM and VmRSS in bytes', () => {
    const status = 'Name:\tnode\nVmPeak:\t 900000 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n';
    expect(parseMemoryUsage(status)).toEqual({ peakRssBytes: 204_800 * 1024, rssBytes: 102_400 * 1024 });
  });
});

describe('/proc readings of this process', () => {
  it('finds CPU time and memory, and nothing for a process that does not exist', async () => {
    expect(await readCpuTicks(process.pid)).toBeGreaterThanOrEqual(0);
    expect((await readMemoryUsage(process.pid))?.peakRssBytes).toBeGreaterThan(0);
    expect(await readCpuTicks(2 ** 22 + 1)).toBeUndefined();
  });
});

describe('cpuMillisecondsBetween()', () => {
  it('converts tick differences to milliseconds per process', () => {
    const processes = [
      { name: 'gateway', role: 'stack' as const, pid: 1 },
      { name: 'identity', role: 'stack' as const, pid: 2 },
    ];
    const used = cpuMillisecondsBetween(processes, new Map([[1, 100], [2, 50]]), new Map([[1, 130], [2, 50]]), 100);
    expect(used).toEqual({ gateway: 300, identity: 0 });
  });
});
