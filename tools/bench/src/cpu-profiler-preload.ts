import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

/**
 * Loaded into every unit of a profiled bench stack with
 * `NODE_OPTIONS=--require …/cpu-profiler-preload.js` (Node 20 refuses
 * `--cpu-prof` in NODE_OPTIONS, and the launcher starts units with no other
 * flags). Each SIGUSR2 toggles V8's sampling profiler, so the bench profiles
 * exactly the measured run of a scenario; each stop writes
 * `<BENCH_CPU_PROFILE_DIR>/<pid>.<n>.cpuprofile`. Nothing else changes in
 * the unit: it neither uses SIGUSR2 nor sees this module.
 */
const directory = process.env.BENCH_CPU_PROFILE_DIR;
if (directory) {
  const session = new Session();
  session.connect();
  let profiling = false;
  let busy = false;
  let written = 0;
  process.on('SIGUSR2', () => {
    if (busy) return;
    busy = true;
    if (!profiling) {
      session.post('Profiler.enable', () =>
        session.post('Profiler.start', () => {
          profiling = true;
          busy = false;
        }),
      );
      return;
    }
    session.post('Profiler.stop', (error, result) => {
      profiling = false;
      busy = false;
      if (error) return;
      written += 1;
      writeFileSync(path.join(directory, `${process.pid}.${written}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
