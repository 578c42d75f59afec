/** A listing page as RFC 7644 §3.4.2.4 asks it: 1-based startIndex, count. */
export interface Page {
  readonly startIndex: number;
  readonly count: number;
  /** count=0: only totalResults is answered. */
  readonly countOnly: boolean;
}

const DEFAULT_COUNT = 100;
/** ServiceProviderConfig filter.maxResults. */
export const MAX_COUNT = 200;

/** A startIndex below 1 is 1, a count above the maximum the maximum, as the RFC has servers read them rather than refuse. */
export function pageOf(request: { readonly startIndex: number; readonly count: number; readonly countOnly: boolean }): Page {
  return {
    startIndex: Math.max(1, request.startIndex),
    count: request.count === 0 ? DEFAULT_COUNT : Math.min(request.count, MAX_COUNT),
    countOnly: request.countOnly,
  };
}
