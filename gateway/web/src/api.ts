import { createLatchkeyClient, isProblem, type ErrorCode, type Problem } from '@latchkey/client';

/** The gateway that served this page: same origin, so the session cookie and the Origin check just work. */
export const api = createLatchkeyClient('', { credentials: 'same-origin' });

/** An error answer of the API, kept whole: forms show its detail and its field errors. */
export class ApiError extends Error {
  constructor(readonly problem: Pick<Problem, 'title' | 'status' | 'code'> & Partial<Problem>) {
    super(problem.detail ?? problem.title);
  }

  get code(): ErrorCode {
    return this.problem.code;
  }

  /** Field errors by field name (`errors[]` of a 400), for the form to show beside each field. */
  get fields(): Record<string, string> {
    return Object.fromEntries((this.problem.errors ?? []).map((error) => [error.field.split('.')[0] ?? error.field, error.message]));
  }
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * The data of an answer, or an ApiError: the problem+json the API sent, or
 * one made up for an answer that is not (a proxy's error page, a dropped
 * connection), so that every failure reaches the user the same way.
 */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch {
    throw new ApiError({ title: 'The server could not be reached.', status: 0, code: 'service:unavailable', detail: 'Check your connection and try again.' });
  }
  if (answer.response.ok) return answer.data as T;
  if (isProblem(answer.error)) throw new ApiError(answer.error);
  throw new ApiError({ title: answer.response.statusText || 'The request failed.', status: answer.response.status, code: 'internal:error' });
}

/** Whether `error` is the API's answer with one of `codes`. */
export function isApiError(error: unknown, ...codes: ErrorCode[]): error is ApiError {
  return error instanceof ApiError && (codes.length === 0 || codes.includes(error.code));
}
