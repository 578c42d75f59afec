export { createUnitNkeys, natsUnitsOf, nkeyAuthorization, nkeySecretManifest, nkeyValues, type UnitNkey } from './unit-nkeys';
export { nscCommands } from './nsc-commands';
