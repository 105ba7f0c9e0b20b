import { useParams } from '@solidjs/router'
import { createMemo, createSignal, For, Show } from 'solid-js'
import type { AgentActivity } from '../../../runtime/contracts/chat.ts'
import { Markdown } from '../markdown/markdown.tsx'
import { Confirm } from '../components/confirm.tsx'
import { BudgetCost } from './budget-cost.tsx'
import { FeedbackButtons } from './feedback-buttons.tsx'
import { RecallOutput } from './recall-output.tsx'
import { activityOf, metadataOf, rowKeys, textOf, usageOf, type ShownMessage } from './messages.ts'
import type { ActivityPart } from './reducer.ts'
import { TurnChanges, WRITING_TOOLS } from './turn-changes.tsx'

type Row = { message: ShownMessage; streaming: boolean }

/**
 * The conversation: saved messages, then the live exchange while a turn streams. Saved and live
 * replies render through the same view, so the agents' activity looks the same after a reload.
 * Rows are keyed (rowKeys) so the saved copy of a finished turn takes over the live copy's row.
 */
export function Transcript(props: {
  messages: ShownMessage[]
  live?: { user: ShownMessage; reply: ShownMessage; streaming: boolean } | undefined
  /** Removes an exchange (from a user message to the next); absent while removal is not allowed. */
  onRemove?: ((userMessageId: string) => void) | undefined
}) {
  const [confirming, setConfirming] = createSignal<string>()
  const rows = createMemo(() => {
    const live = props.live
    const list: Row[] = props.messages.map((message) => ({ message, streaming: false }))
    if (live) {
      list.push({ message: live.user, streaming: false })
      list.push({ message: live.reply, streaming: live.streaming })
    }
    const keys = rowKeys(list.map((r) => r.message))
    return { keys, byKey: new Map(keys.map((key, i) => [key, list[i]!])) }
  })
  return (
    <ol class="transcript" aria-label="Conversation">
      <For each={rows().keys}>
        {(key) => {
          const row = () => rows().byKey.get(key)
          return (
            <Show when={row()}>
              {(r) => (
                <li>
                  <MessageView
                    message={r().message}
                    streaming={r().streaming}
                    onRemove={
                      props.onRemove && r().message.role === 'user'
                        ? () => setConfirming(r().message.id)
                        : undefined
                    }
                  />
                  <Show when={confirming() === r().message.id && props.onRemove}>
                    {(remove) => (
                      <Confirm
                        message="Remove this message and its reply from the transcript? The agents’ memory of the conversation is not changed."
                        confirmLabel="Remove exchange"
                        onConfirm={() => {
                          // Read before closing: the Show's value is stale once its condition is false.
                          const removeExchange = remove()
                          const id = r().message.id
                          setConfirming(undefined)
                          removeExchange(id)
                        }}
                        onCancel={() => setConfirming(undefined)}
                      />
                    )}
                  </Show>
                </li>
              )}
            </Show>
          )
        }}
      </For>
    </ol>
  )
}

function MessageView(props: {
  message: ShownMessage
  streaming?: boolean
  onRemove?: (() => void) | undefined
}) {
  const meta = () => metadataOf(props.message)
  const text = createMemo(() => textOf(props.message))
  const activity = () => activityOf(props.message)
  const params = useParams()
  // A saved turn that called a writing tool may have changed files: its change set, with Undo.
  const wrote = () =>
    !props.streaming &&
    activity().some((a) => a.data.kind === 'tool' && WRITING_TOOLS.has(a.data.tool ?? ''))
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
        <Markdown class="reply-text" text={text()} streaming={props.streaming} />
      </Show>
      <Show when={wrote() && params.id && meta()?.turnId ? meta()!.turnId : undefined}>
        {(turnId) => <TurnChanges sessionId={params.id!} turnId={turnId()} />}
      </Show>
      <Show when={meta()?.error}>
        <p class="error turn-error" role="alert">
          {meta()?.error}
        </p>
      </Show>
      <Show when={meta()?.aborted}>
        <p class="muted stopped">Stopped before the reply finished.</p>
      </Show>
      <Show when={meta()?.budget?.exhausted}>
        {(kind) => (
          <p class="muted stopped" role="status">
            The turn's budget ended ({BUDGET_NAMES[kind()]}): this answer is what it allowed.
          </p>
        )}
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
      <Show when={!props.streaming && meta()?.traceId}>
        {(traceId) => <FeedbackButtons traceId={traceId()} sessionId={params.id} />}
      </Show>
      <Show when={meta()?.budget}>
        {(b) => (
          <p class="usage budget" title="What this turn may spend (settings → budgets)">
            Budget: {b().used.toolCalls} of {b().limits.toolCalls} tool calls ·{' '}
            {b().used.inputTokens.toLocaleString()} of {b().limits.inputTokens.toLocaleString()}{' '}
            input tokens
            <BudgetCost budget={b()} />
          </p>
        )}
      </Show>
    </article>
  )
}

const BUDGET_NAMES = {
  inputTokens: 'input tokens',
  outputTokens: 'output tokens',
  toolCalls: 'tool calls',
  wallTimeMs: 'wall time',
  costUsd: 'cost cap',
} as const

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
        {(output) => (
          <Show when={d().tool === 'recall'} fallback={<pre class="act-output">{output()}</pre>}>
            <RecallOutput text={output()} />
          </Show>
        )}
      </Show>
    </li>
  )
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)

const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`)
