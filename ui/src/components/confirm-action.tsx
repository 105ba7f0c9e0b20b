import { createSignal, Show } from 'solid-js'
import { createSubmission, describeError } from '../forms/submission.ts'
import { Confirm } from './confirm.tsx'

/**
 * A destructive action behind the in-page confirmation: the first click asks, the confirm button
 * runs it, "Keep it" (or Escape) puts the button back, and the server's message shows if it fails.
 */
export function ConfirmAction(props: {
  label: string
  /** The accessible name when the visible label alone is ambiguous ("Delete" in a list). */
  name?: string
  question: string
  confirmLabel: string
  onConfirm: () => Promise<unknown>
}) {
  const [asking, setAsking] = createSignal(false)
  const { busy, error, run } = createSubmission()
  let ask: HTMLButtonElement | undefined
  const keep = () => {
    setAsking(false)
    // The button that asked is back: the keyboard continues from it, not from the document.
    ask?.focus()
  }
  const confirm = () =>
    run(async () => {
      await props.onConfirm()
      setAsking(false)
    })
  return (
    <span class="ask-first">
      <Show
        when={asking()}
        fallback={
          <button
            type="button"
            class="danger"
            aria-label={props.name}
            ref={ask}
            onClick={() => setAsking(true)}
          >
            {props.label}
          </button>
        }
      >
        <Confirm
          inline
          message={props.question}
          label={props.question}
          confirmLabel={props.confirmLabel}
          cancelLabel="Keep it"
          busy={busy()}
          onConfirm={() => void confirm()}
          onCancel={keep}
        />
      </Show>
      <Show when={error()}>
        <span class="error" role="alert">
          {describeError(error())}
        </span>
      </Show>
    </span>
  )
}
