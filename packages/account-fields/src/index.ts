export {
  HANDLE_PATTERN,
  HANDLE_RULE,
  MAX_EMAIL_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PASSWORD_RULE,
  isPasswordLengthValid,
  normalizeEmail,
  normalizeHandle,
  normalizePassword,
  passwordLength,
} from './account-fields';
