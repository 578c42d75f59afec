export {
  launchStack,
  repositoryRoot,
  type LaunchStackOptions,
  type RunningStack,
  type StackMail,
  type StackProcess,
  type StackS3,
} from './launch-stack';
export type { StackEvent } from './stack-events';
export type { CaughtMail } from './mail-catcher';
export type { ProcessExit } from './unit-process';
export { UnitStartError } from './unit-process';
export { BackingServicesUnreachableError, type BackingServiceCheck } from './backing-services';
export { stackUnits, type StackUnit } from './stack-units';
export { extractTokenLinks } from './mail-links';
