import { createContext, createSignal, onCleanup, useContext, type JSX } from 'solid-js'
import { KEY_REJECTED, storedKey, storeKey } from './auth.ts'

export type KeyPromptReason = 'none' | 'missing' | 'wrong'

/**
 * Whether the UI must ask for the API key, and why: provided once at the layout (app.tsx), so
 * two views or a test each hold their own instead of sharing module-level signals.
 */
function createAuthState() {
  const [prompt, setPrompt] = createSignal<KeyPromptReason>('none')
  const rejected = () => setPrompt(storedKey() ? 'wrong' : 'missing')
  window.addEventListener(KEY_REJECTED, rejected)
  onCleanup(() => window.removeEventListener(KEY_REJECTED, rejected))
  return {
    /** 'none' while the key works (or the server needs none). */
    prompt,
    /** Keeps the entered key and lets the pages render again. */
    save(value: string) {
      storeKey(value)
      setPrompt('none')
    },
  }
}
export type AuthState = ReturnType<typeof createAuthState>

const AuthContext = createContext<AuthState>()

export function AuthProvider(props: { children: JSX.Element }) {
  return <AuthContext.Provider value={createAuthState()}>{props.children}</AuthContext.Provider>
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext)
  if (!state) throw new Error('useAuth() needs an <AuthProvider> above it (app.tsx)')
  return state
}
