import { createSignal } from 'solid-js'

const STORAGE_KEY = 'popagent.apiKey'

const [key, setKey] = createSignal<string | null>(localStorage.getItem(STORAGE_KEY))
const [needed, setNeeded] = createSignal<'none' | 'missing' | 'wrong'>('none')

/** The API key the owner entered, sent as `x-popagent-key`. */
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
