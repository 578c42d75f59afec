export { runProcess, type Running, type ProcessSpec } from './run-process';
