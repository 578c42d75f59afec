import { status as GrpcStatus } from '@grpc/grpc-js';
import { AppError, describeError, errorCatalogue, isAppError, isErrorCode } from './index';

const codes = Object.keys(errorCatalogue);

test('every code is domain:reason in snake case', () => {
  for (const code of codes) expect(code).toMatch(/^[a-z_]+:[a-z_]+$/);
});

test('client errors map to client gRPC statuses and server errors to server ones', () => {
  const serverSide = new Set([GrpcStatus.INTERNAL, GrpcStatus.UNAVAILABLE]);
  for (const code of codes) {
    const { httpStatus, grpcStatus, message } = describeError(code as keyof typeof errorCatalogue);
    expect({ code, serverSide: httpStatus >= 500 }).toEqual({ code, serverSide: serverSide.has(grpcStatus) });
    expect(message.length).toBeGreaterThan(0);
  }
});

test('isErrorCode knows the catalogue and nothing else, not even inherited names', () => {
  expect(isErrorCode('post:not_found')).toBe(true);
  expect(isErrorCode('post:gone')).toBe(false);
  expect(isErrorCode('toString')).toBe(false);
  expect(isErrorCode(404)).toBe(false);
});

test("an AppError carries its code, the catalogue's status and default detail, or the thrower's", () => {
  const plain = new AppError('post:forbidden');
  expect(plain).toMatchObject({ name: 'AppError', code: 'post:forbidden', httpStatus: 403, message: 'Only the author may change this post.' });
  expect(isAppError(plain)).toBe(true);
  expect(isAppError(new Error('x'))).toBe(false);

  const cause = new Error('socket hang up');
  const limited = new AppError('rate_limit:exceeded', 'Slow down.', { retryAfterSeconds: 30, cause });
  expect(limited).toMatchObject({ message: 'Slow down.', retryAfterSeconds: 30, httpStatus: 429, cause });
});

test('a validation error names every field in its detail and lists them', () => {
  const error = AppError.validation([
    { field: 'handle', message: 'must be 3-32 characters' },
    { field: 'items[0].title', message: 'is required' },
  ]);
  expect(error.code).toBe('validation:invalid_input');
  expect(error.message).toBe('handle must be 3-32 characters; items[0].title is required');
  expect(error.fields).toHaveLength(2);
  expect(AppError.validation([]).message).toBe('The request is not valid.');
});
