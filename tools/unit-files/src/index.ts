export { filesWithGeneratedRegions, generatedFiles, unitFiles } from './unit-files';
export { regionMarkers } from './marked-region';
export { developmentNatsPassword } from './nats-users';
