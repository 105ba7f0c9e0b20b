import { Show, type JSX } from 'solid-js'

/**
 * The message box. Enter sends and Shift+Enter starts a new line; while a turn runs the Send
 * button becomes Stop (Escape also stops: the page handles it). The draft is the page's, so a
 * reload after a conflict never loses it.
 */
export function Composer(props: {
  draft: string
  onDraft: (text: string) => void
  running: boolean
  disabled?: string | undefined
  onSend: () => void
  onStop: () => void
  picker: JSX.Element
  ref?: (el: HTMLTextAreaElement) => void
}) {
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault()
        if (!props.running) props.onSend()
      }}
    >
      <Show when={props.disabled}>
        <p class="muted">{props.disabled}</p>
      </Show>
      <textarea
        ref={props.ref}
        aria-label="Message"
        rows={3}
        placeholder="Ask the agents… (Enter sends, Shift+Enter adds a line)"
        value={props.draft}
        disabled={Boolean(props.disabled)}
        onInput={(e) => props.onDraft(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter' || e.shiftKey || e.isComposing) return
          e.preventDefault()
          if (!props.running) props.onSend()
        }}
      />
      <div class="composer-bar">
        {props.picker}
        <span class="hint muted">Esc stops · Alt+↑/↓ switches session</span>
        <Show
          when={props.running}
          fallback={
            <button type="submit" disabled={!props.draft.trim() || Boolean(props.disabled)}>
              Send
            </button>
          }
        >
          <button type="button" class="danger" onClick={() => props.onStop()}>
            Stop
          </button>
        </Show>
      </div>
    </form>
  )
}
