const STORAGE_KEY = 'popagent.apiKey'
/** The event the API client raises on a 401; the AuthProvider (auth-provider.tsx) listens. */
export const KEY_REJECTED = 'popagent:key-rejected'

/**
 * The API key lives in localStorage only: the client reads it for each request, so no module holds
 * it and a provider, a second view or a test never sees a stale copy.
 */
export function storedKey(): string | null {
  return localStorage.getItem(STORAGE_KEY)
}

export function storeKey(value: string): void {
  localStorage.setItem(STORAGE_KEY, value)
}

/**
 * A 401 from the server. The typed client is module-level (queries share its cache), so it cannot
 * reach a provider's signals; it raises an event on the window instead, which each mounted
 * AuthProvider turns into its own prompt state.
 */
export function signalKeyRejected(): void {
  window.dispatchEvent(new Event(KEY_REJECTED))
}

/**
 * The login link `popagent start` prints (`/#key=<key>`) hands the key over in the fragment,
 * which never reaches a server. It is stored like an entered key and removed from the address bar
 * and the history entry, so that it is not bookmarked, shared or left on screen: the address left
 * is the app's start page (`#/`). main.tsx calls this before the hash router reads the address, and on
 * each hashchange: the link pasted into a tab already open changes only the fragment.
 *
 * Returns whether the stored key changed (what the open pages were refused may now load).
 */
export function takeKeyFromFragment(): boolean {
  const match = /^#key=([^&]+)$/.exec(location.hash)
  if (!match) return false
  const before = storedKey()
  try {
    storeKey(decodeURIComponent(match[1]!))
  } catch {
    // A malformed escape: no key, and the prompt will ask for one.
  }
  history.replaceState(history.state, '', `${location.pathname}${location.search}#/`)
  return storedKey() !== before
}
