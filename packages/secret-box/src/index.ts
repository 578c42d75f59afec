export { SecretBox, SecretBoxError, keyIdOf, type SealedSecret } from './secret-box';
export { openSealed, sealTo } from './sealed-box';
