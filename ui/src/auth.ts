import { createSignal } from 'solid-js'

const STORAGE_KEY = 'popagent.apiKey'

/**
 * The login link `popagent start` prints (`/#key=<key>`) hands the key over in the fragment,
 * which never reaches a server. It is taken before the hash router reads the address (this
 * module loads before the app renders), stored like an entered key, and removed from the address
 * bar and the history entry so that it is not bookmarked, shared or left on screen.
 */
function takeKeyFromFragment(): void {
  const match = /^#key=([^&]+)$/.exec(location.hash)
  if (!match) return
  try {
    localStorage.setItem(STORAGE_KEY, decodeURIComponent(match[1]!))
  } catch {
    // A malformed escape: no key, and the prompt will ask for one.
  }
  history.replaceState(history.state, '', location.pathname + location.search)
}
takeKeyFromFragment()

const [key, setKey] = createSignal<string | null>(localStorage.getItem(STORAGE_KEY))
const [needed, setNeeded] = createSignal<'none' | 'missing' | 'wrong'>('none')

/** The API key the owner entered or signed in with, sent as `x-popagent-key`. */
export const apiKey = key
/** Whether the UI must ask for the key, and why. */
export const keyPrompt = needed

/** A 401: the server has a key and this one is missing or wrong. */
export function keyRejected() {
  setNeeded(key() ? 'wrong' : 'missing')
}

export function saveKey(value: string) {
  localStorage.setItem(STORAGE_KEY, value)
  setKey(value)
  setNeeded('none')
}
