import { createSignal, Show } from 'solid-js'

/**
 * A message the owner sent. The last one can be edited and sent again: the edited text replaces
 * it and its reply (the page drops that exchange, then sends). When that reply changed files, the
 * editor offers to undo them first, so the new answer starts from the files as they were.
 */
export function UserMessage(props: {
  text: string
  onRemove?: (() => void) | undefined
  onResend?: ((text: string, undoFiles: boolean) => void) | undefined
  /** The reply changed files: the editor offers to undo them. */
  changedFiles?: boolean
}) {
  const [editing, setEditing] = createSignal(false)
  const [draft, setDraft] = createSignal('')
  const [undoFiles, setUndoFiles] = createSignal(false)
  return (
    <article class="msg user">
      <div class="msg-head">
        <span class="who">You</span>
        <span class="msg-tools">
          <Show when={props.onResend && !editing()}>
            <button
              type="button"
              class="link-button"
              onClick={() => {
                setDraft(props.text)
                setUndoFiles(false)
                setEditing(true)
              }}
            >
              Edit
            </button>
          </Show>
          <Show when={props.onRemove}>
            {(remove) => (
              <button type="button" class="link-button" onClick={() => remove()()}>
                Remove
              </button>
            )}
          </Show>
        </span>
      </div>
      <Show when={editing() && props.onResend} fallback={<div class="msg-text">{props.text}</div>}>
        {(resend) => (
          <form
            class="edit-message"
            onSubmit={(e) => {
              e.preventDefault()
              const text = draft().trim()
              if (!text) return
              // Read before closing: the Show's value is stale once its condition is false.
              const send = resend()
              setEditing(false)
              send(text, undoFiles())
            }}
          >
            <textarea
              aria-label="Edit message"
              rows={3}
              value={draft()}
              ref={(el) => queueMicrotask(() => el.focus())}
              onInput={(e) => setDraft(e.currentTarget.value)}
              on:keydown={(e) => {
                if (e.key !== 'Escape') return
                e.preventDefault()
                e.stopPropagation()
                setEditing(false)
              }}
            />
            <Show when={props.changedFiles}>
              <label class="check">
                <input
                  type="checkbox"
                  checked={undoFiles()}
                  onChange={(e) => setUndoFiles(e.currentTarget.checked)}
                />
                Also undo the files this turn changed
              </label>
            </Show>
            <p class="muted edit-note">Sending replaces this message and its reply.</p>
            <div class="row">
              <button type="submit" disabled={!draft().trim()}>
                Send edited
              </button>
              <button type="button" class="secondary" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </div>
          </form>
        )}
      </Show>
    </article>
  )
}
