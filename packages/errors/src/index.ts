export { errorCatalogue, isErrorCode, describeError, type ErrorCode } from './catalogue';
export { AppError, isAppError, type FieldError } from './app-error';
