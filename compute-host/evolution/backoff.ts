/** A signal is tried this many times before it is `dead` (the owner may retry it). */
export const MAX_ATTEMPTS = 5
/** Retry waits: 30 s, doubling, at most 30 min. */
export const BACKOFF_BASE_S = 30
export const BACKOFF_CAP_S = 30 * 60
