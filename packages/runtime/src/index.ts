export { runProcess, type Running, type ProcessSpec } from './run-process';
export { startPeriodicTask, type PeriodicTask } from './periodic-task';
