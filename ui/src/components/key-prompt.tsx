import { createSignal } from 'solid-js'
import { saveKey } from '../auth.ts'

/** Asks once for the server's API key; a wrong key says so instead of showing a blank page. */
export function KeyPrompt(props: { reason: 'none' | 'missing' | 'wrong' }) {
  const [value, setValue] = createSignal('')
  return (
    <form
      class="card key-prompt"
      onSubmit={(e) => {
        e.preventDefault()
        if (value().trim()) saveKey(value().trim())
        location.reload()
      }}
    >
      <h2>API key</h2>
      <p role={props.reason === 'wrong' ? 'alert' : undefined}>
        {props.reason === 'wrong'
          ? 'The server refused that API key. Enter the key set in POPAGENT_API_KEY.'
          : 'This popagent needs its API key (POPAGENT_API_KEY).'}
      </p>
      <input
        type="password"
        aria-label="API key"
        autocomplete="current-password"
        value={value()}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <button type="submit">Continue</button>
    </form>
  )
}
