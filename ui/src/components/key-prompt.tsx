import { createSignal } from 'solid-js'
import { useAuth, type KeyPromptReason } from '../auth-provider.tsx'

// Where the owner finds the key: the login link `popagent start` prints, the key file it
// generated, or the variable that overrides both (cli/api-key-file.ts).
const WHERE =
  'Open the sign-in link popagent printed when it started, or enter the key from the api-key file in its data directory (POPAGENT_DATA_DIR, ./data by default), or POPAGENT_API_KEY if that is set.'

/** Asks once for the server's API key; a wrong key says so instead of showing a blank page. */
export function KeyPrompt(props: { reason: KeyPromptReason }) {
  const auth = useAuth()
  const [value, setValue] = createSignal('')
  return (
    <form
      class="card key-prompt"
      onSubmit={(e) => {
        e.preventDefault()
        if (value().trim()) auth.save(value().trim())
        location.reload()
      }}
    >
      <h2>API key</h2>
      <p role={props.reason === 'wrong' ? 'alert' : undefined}>
        {props.reason === 'wrong'
          ? 'The server refused that API key.'
          : 'This popagent needs its API key.'}{' '}
        {WHERE}
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
