import { packageOf, summarizeProfile, type CpuProfile } from './profile-summary';

describe('packageOf()', () => {
  it('names the package, Node, our workspace folder or the V8 pseudo-frame', () => {
    expect(packageOf('file:///r/node_modules/.pnpm/pino@9.6.0/node_modules/pino/lib/tools.js', 'asJson')).toBe('pino');
    expect(packageOf('file:///r/node_modules/.pnpm/@grpc+grpc-js@1.13/node_modules/@grpc/grpc-js/build/src/call.js', 'x')).toBe('@grpc/grpc-js');
    expect(packageOf('node:internal/streams/writable', 'write')).toBe('node:');
    expect(packageOf('file:///r/gateway/dist/app.js', 'x')).toBe('gateway');
    expect(packageOf('file:///r/packages/grpc-kit/dist/service-client.js', 'x')).toBe('packages/grpc-kit');
    expect(packageOf('', '(garbage collector)')).toBe('(garbage collector)');
  });
});

describe('summarizeProfile()', () => {
  it('sums self time by package and function, leaving idle out', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(idle)', '') },
        { id: 2, callFrame: frame('asJson', 'file:///r/node_modules/pino/lib/tools.js') },
        { id: 3, callFrame: frame('handler', 'file:///r/gateway/dist/app.js') },
      ],
      startTime: 0,
      endTime: 10_000,
      samples: [1, 2, 2, 3],
      timeDeltas: [5_000, 1_000, 1_000, 2_000],
    };
    const summary = summarizeProfile(profile);
    expect(summary.totalMs).toBe(4);
    expect(summary.byPackage).toEqual([
      { name: 'pino', ms: 2, percent: 50 },
      { name: 'gateway', ms: 2, percent: 50 },
    ]);
    expect(summary.byFunction[0]?.name).toBe('asJson tools.js:1 [pino]');
  });
});
