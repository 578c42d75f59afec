export { SecretBox, SecretBoxError, keyIdOf, type SealedSecret } from './secret-box';
