import { A } from '@solidjs/router'
import { createSignal, Show } from 'solid-js'
import { copyText } from '../markdown/copy.ts'

/**
 * What can be done with a finished reply: copy its answer, send its prompt again (Retry when
 * the turn failed or stopped, Regenerate when it answered; only on the session's last reply, and
 * only while no turn runs), and open its trace.
 */
export function ReplyActions(props: {
  text: string
  ended: 'completed' | 'failed'
  traceId?: string | undefined
  onResend?: (() => void) | undefined
}) {
  const [copied, setCopied] = createSignal<string>()
  let copyButton: HTMLButtonElement | undefined
  const copy = async () => {
    const ok = await copyText(props.text, copyButton!)
    setCopied(ok ? 'Copied' : 'Copy failed')
    setTimeout(() => setCopied(undefined), 1500)
  }
  return (
    <div class="reply-actions">
      <Show when={props.onResend}>
        {(resend) => (
          <button type="button" class="secondary" onClick={() => resend()()}>
            {props.ended === 'failed' ? 'Retry' : 'Regenerate'}
          </button>
        )}
      </Show>
      <Show when={props.text}>
        <button type="button" class="link-button" ref={copyButton} onClick={() => void copy()}>
          {copied() ?? 'Copy'}
        </button>
      </Show>
      <Show when={props.traceId}>
        {(id) => (
          <A class="trace-link" href={`/observability/traces/${id()}`}>
            Trace
          </A>
        )}
      </Show>
    </div>
  )
}
