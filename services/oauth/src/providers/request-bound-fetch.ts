import { AsyncLocalStorage } from 'node:async_hooks';
import type * as client from 'openid-client';

/**
 * The signal of the request a provider call works for. openid-client
 * configurations are built once and shared by every request, and its calls
 * take no signal of their own, so the signal reaches fetch through the
 * async context instead of through every openid-client call.
 */
const requestSignal = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` so that every provider request it makes stops when `signal` aborts. */
export function boundToRequest<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return requestSignal.run(signal, work);
}

/**
 * fetch, also aborted by the signal of the request in whose context it runs,
 * on top of openid-client's own per-request timeout.
 */
export function requestBoundFetch(inner: client.CustomFetch = (url, options) => fetch(url, options)): client.CustomFetch {
  return (url, options) => {
    const signal = requestSignal.getStore();
    if (!signal) return inner(url, options);
    return inner(url, { ...options, signal: options.signal ? AbortSignal.any([options.signal, signal]) : signal });
  };
}
