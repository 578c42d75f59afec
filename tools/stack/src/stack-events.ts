import type { CaughtMail } from './mail-catcher';
import type { UnitPorts } from './port-layout';
import type { ProcessExit } from './unit-process';

/** Progress of a stack, in the order things happen, for a CLI or a test to report. */
export type StackEvent =
  | { readonly type: 'database-created'; readonly database: string }
  | { readonly type: 'mail-catcher-started'; readonly url: string; readonly directory: string }
  | { readonly type: 's3-started'; readonly endpoint: string; readonly bucket: string; readonly directory: string }
  | { readonly type: 'migrating'; readonly unit: string }
  | { readonly type: 'migrated'; readonly unit: string }
  | { readonly type: 'starting'; readonly unit: string; readonly pid: number | undefined; readonly ports: UnitPorts }
  | {
      readonly type: 'ready';
      readonly unit: string;
      readonly pid: number | undefined;
      readonly ports: UnitPorts;
      /** The `url` of the ready line (the gateway logs where it listens). */
      readonly url?: string;
      readonly elapsedMs: number;
    }
  | {
      /** A unit ended without being asked to: before it was ready (launchStack rejects) or while running. */
      readonly type: 'exited';
      readonly unit: string;
      readonly phase: 'starting' | 'running';
      readonly exit: ProcessExit;
      readonly lastLines: readonly string[];
    }
  | { readonly type: 'stopped'; readonly unit: string; readonly exit: ProcessExit }
  | { readonly type: 'mail'; readonly mail: CaughtMail }
  | { readonly type: 'mail-error'; readonly message: string };
