import { createSignal, Show } from 'solid-js'
import { ErrorNote } from '../components/status.tsx'
import { sendFeedback } from '../queries/observability.ts'

/**
 * Thumbs up or down on an answer, with an optional comment, stored with the turn's trace so it
 * can be read next to what the agents did (and, later, learnt from).
 */
export function FeedbackButtons(props: { traceId: string; sessionId?: string | undefined }) {
  const [value, setValue] = createSignal<'up' | 'down'>()
  const [comment, setComment] = createSignal('')
  const [sent, setSent] = createSignal(false)
  const [error, setError] = createSignal<unknown>()
  const send = async (e: SubmitEvent) => {
    e.preventDefault()
    const chosen = value()
    if (!chosen) return
    setError(undefined)
    try {
      await sendFeedback({
        traceId: props.traceId,
        value: chosen,
        ...(comment().trim() && { comment: comment().trim() }),
        ...(props.sessionId && { sessionId: props.sessionId }),
      })
      setSent(true)
    } catch (err) {
      setError(err)
    }
  }
  return (
    <Show when={!sent()} fallback={<p class="muted feedback">Thanks: feedback saved.</p>}>
      <form class="row feedback" onSubmit={send}>
        <button
          type="button"
          class="link-button"
          aria-pressed={value() === 'up'}
          aria-label="Good answer"
          onClick={() => setValue('up')}
        >
          👍
        </button>
        <button
          type="button"
          class="link-button"
          aria-pressed={value() === 'down'}
          aria-label="Bad answer"
          onClick={() => setValue('down')}
        >
          👎
        </button>
        <Show when={value()}>
          <input
            aria-label="Comment (optional)"
            placeholder="Comment (optional)"
            maxLength={2000}
            value={comment()}
            onInput={(e) => setComment(e.currentTarget.value)}
          />
          <button type="submit">Send feedback</button>
        </Show>
        <ErrorNote error={error()} />
      </form>
    </Show>
  )
}
