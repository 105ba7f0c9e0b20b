import { createSignal, For, Show } from 'solid-js'
import type { AgentActivity } from '../../../runtime/contracts/chat.ts'
import { Confirm } from './confirm.tsx'
import { activityOf, metadataOf, textOf, usageOf, type ShownMessage } from './messages.ts'
import type { ActivityPart } from './reducer.ts'

/**
 * The conversation: saved messages, then the live exchange while a turn streams. Saved and live
 * replies render through the same view, so the agents' activity looks the same after a reload.
 */
export function Transcript(props: {
  messages: ShownMessage[]
  live?: { user: ShownMessage; reply: ShownMessage; streaming: boolean } | undefined
  /** Removes an exchange (from a user message to the next); absent while removal is not allowed. */
  onRemove?: ((userMessageId: string) => void) | undefined
}) {
  const [confirming, setConfirming] = createSignal<string>()
  return (
    <ol class="transcript" aria-label="Conversation">
      <For each={props.messages}>
        {(message) => (
          <li>
            <MessageView
              message={message}
              onRemove={
                props.onRemove && message.role === 'user'
                  ? () => setConfirming(message.id)
                  : undefined
              }
            />
            <Show when={confirming() === message.id && props.onRemove}>
              {(remove) => (
                <Confirm
                  message="Remove this message and its reply from the transcript? The agents’ memory of the conversation is not changed."
                  confirmLabel="Remove exchange"
                  onConfirm={() => {
                    // Read before closing: the Show's value is stale once its condition is false.
                    const removeExchange = remove()
                    setConfirming(undefined)
                    removeExchange(message.id)
                  }}
                  onCancel={() => setConfirming(undefined)}
                />
              )}
            </Show>
          </li>
        )}
      </For>
      <Show when={props.live}>
        {(live) => (
          <>
            <li>
              <MessageView message={live().user} />
            </li>
            <li>
              <MessageView message={live().reply} streaming={live().streaming} />
            </li>
          </>
        )}
      </Show>
    </ol>
  )
}

function MessageView(props: {
  message: ShownMessage
  streaming?: boolean
  onRemove?: (() => void) | undefined
}) {
  const meta = () => metadataOf(props.message)
  const text = () => textOf(props.message)
  const activity = () => activityOf(props.message)
  if (props.message.role === 'user') {
    return (
      <article class="msg user">
        <div class="msg-head">
          <span class="who">You</span>
          <Show when={props.onRemove}>
            {(remove) => (
              <button type="button" class="link-button" onClick={() => remove()()}>
                Remove
              </button>
            )}
          </Show>
        </div>
        <div class="msg-text">{text()}</div>
      </article>
    )
  }
  return (
    <article class="msg assistant" aria-busy={props.streaming ? 'true' : undefined}>
      <div class="msg-head">
        <span class="who">popagent</span>
        <Show when={meta()?.model}>
          <span class="muted">{meta()?.model}</span>
        </Show>
        <Show when={props.streaming}>
          <span class="streaming-dot" aria-label="replying" />
        </Show>
      </div>
      <Show when={activity().length > 0}>
        <ActivityList items={activity()} />
      </Show>
      <Show
        when={text()}
        fallback={
          <Show when={props.streaming && activity().length === 0}>
            <p class="muted">Thinking…</p>
          </Show>
        }
      >
        <div class="msg-text reply-text">{text()}</div>
      </Show>
      <Show when={meta()?.error}>
        <p class="error turn-error" role="alert">
          {meta()?.error}
        </p>
      </Show>
      <Show when={meta()?.aborted}>
        <p class="muted stopped">Stopped before the reply finished.</p>
      </Show>
      <Show when={usageOf(meta()).length > 0}>
        <p class="usage">
          Tokens{' '}
          <For each={usageOf(meta())}>
            {(u) => (
              <span class="usage-model">
                {u.model}: {u.inputTokens.toLocaleString()} in · {u.outputTokens.toLocaleString()}{' '}
                out
              </span>
            )}
          </For>
        </p>
      </Show>
    </article>
  )
}

/** Who worked on the reply: each delegation and tool call with its status and result or error. */
function ActivityList(props: { items: ActivityPart[] }) {
  return (
    <ul class="activity" aria-label="Agent activity">
      <For each={props.items}>{(item) => <ActivityItem data={item.data} />}</For>
    </ul>
  )
}

function ActivityItem(props: { data: AgentActivity }) {
  const d = () => props.data
  return (
    <li class={`act act-${d().status}`}>
      <div class="act-head">
        <span class="act-agent">{d().agentName}</span>
        <span class="act-what">
          {d().kind === 'delegation' ? 'delegated task' : (d().tool ?? 'tool')}
        </span>
        <span class={`badge act-status status-${d().status}`}>{d().status}</span>
        <Show when={d().durationMs !== undefined}>
          <span class="muted">{seconds(d().durationMs!)}</span>
        </Show>
      </div>
      <Show when={d().input}>
        <div class="act-input" title={d().input}>
          {clip(d().input!, 160)}
        </div>
      </Show>
      <Show when={d().error}>
        <pre class="act-error">{d().error}</pre>
      </Show>
      <Show when={d().output}>
        <pre class="act-output">{d().output}</pre>
      </Show>
    </li>
  )
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)

const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`)
