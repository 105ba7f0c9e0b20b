import { useParams } from '@solidjs/router'
import { createMemo, createSignal, For, Show } from 'solid-js'
import { Markdown } from '../markdown/markdown.tsx'
import { Confirm } from '../components/confirm.tsx'
import { BudgetCost } from './budget-cost.tsx'
import { FeedbackButtons } from './feedback-buttons.tsx'
import { activityOf, metadataOf, rowKeys, textOf, usageOf, type ShownMessage } from './messages.ts'
import { ReplyActions } from './reply-actions.tsx'
import { StepList } from './step-list.tsx'
import { TurnChanges, WRITING_TOOLS } from './turn-changes.tsx'
import { UserMessage } from './user-message.tsx'
import { WorkingLine } from './working-line.tsx'

type Row = { message: ShownMessage; streaming: boolean }

/** Sends a prompt again in place of the exchange that begins at this user message. */
export type Resend = (
  userMessageId: string,
  text: string,
  options?: { undoTurnId?: string | undefined },
) => void

/**
 * The conversation: saved messages, then the live exchange while a turn streams. Saved and live
 * replies render through the same view, so the agents' activity looks the same after a reload.
 * Rows are keyed (rowKeys) so the saved copy of a finished turn takes over the live copy's row.
 * Only the last exchange can be sent again (retry, regenerate, edit): replacing an earlier one
 * would leave the later answers replying to a question no longer there.
 */
export function Transcript(props: {
  messages: ShownMessage[]
  live?: { user: ShownMessage; reply: ShownMessage; streaming: boolean } | undefined
  /** Removes an exchange (from a user message to the next); absent while removal is not allowed. */
  onRemove?: ((userMessageId: string) => void) | undefined
  /** Sends the last exchange's prompt again; absent while a turn runs or the session is archived. */
  onResend?: Resend | undefined
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
    return { keys, byKey: new Map(keys.map((key, i) => [key, list[i]!])), list }
  })
  // The last exchange: its user message and its reply, if any.
  const last = createMemo(() => {
    const list = rows().list
    const at = list.findLastIndex((r) => r.message.role === 'user')
    if (at === -1) return undefined
    return { user: list[at]!.message, reply: list[at + 1]?.message }
  })
  const resendLast = (text: string, undoTurnId?: string) => {
    const user = last()?.user
    if (user && props.onResend) props.onResend(user.id, text, { undoTurnId })
  }
  return (
    <ol class="transcript" aria-label="Conversation">
      <For each={rows().keys}>
        {(key) => {
          const row = () => rows().byKey.get(key)
          return (
            <Show when={row()}>
              {(r) => {
                const isLastUser = () => last()?.user === r().message
                const isLastReply = () => {
                  const reply = last()?.reply
                  return reply !== undefined && reply === r().message
                }
                return (
                  <li>
                    <Show
                      when={r().message.role === 'user'}
                      fallback={
                        <ReplyView
                          message={r().message}
                          streaming={r().streaming}
                          onResend={
                            props.onResend && isLastReply() && last()
                              ? () => resendLast(textOf(last()!.user))
                              : undefined
                          }
                        />
                      }
                    >
                      <UserMessage
                        text={textOf(r().message)}
                        onRemove={props.onRemove ? () => setConfirming(r().message.id) : undefined}
                        onResend={
                          props.onResend && isLastUser()
                            ? (text, undoFiles) =>
                                resendLast(text, undoFiles ? changedTurn(last()?.reply) : undefined)
                            : undefined
                        }
                        changedFiles={isLastUser() && changedTurn(last()?.reply) !== undefined}
                      />
                    </Show>
                    <Show when={confirming() === r().message.id && props.onRemove}>
                      {(remove) => (
                        <Confirm
                          message="Remove this message and its reply? The agents will not see them in later turns."
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
                )
              }}
            </Show>
          )
        }}
      </For>
    </ol>
  )
}

/** A saved reply that called a writing tool may have changed files: its turn id, else undefined. */
function changedTurn(reply: ShownMessage | undefined): string | undefined {
  if (!reply || reply.role !== 'assistant') return undefined
  const wrote = activityOf(reply).some(
    (a) => a.data.kind === 'tool' && WRITING_TOOLS.has(a.data.tool ?? ''),
  )
  return wrote ? metadataOf(reply)?.turnId : undefined
}

function ReplyView(props: {
  message: ShownMessage
  streaming?: boolean
  onResend?: (() => void) | undefined
}) {
  const meta = () => metadataOf(props.message)
  const text = createMemo(() => textOf(props.message))
  const activity = () => activityOf(props.message)
  const params = useParams()
  const failed = () => Boolean(meta()?.error || meta()?.aborted)
  return (
    <article class="msg assistant" aria-busy={props.streaming ? 'true' : undefined}>
      <div class="msg-head">
        <span class="who">popagent</span>
        <Show when={meta()?.model}>
          <span class="muted">{meta()?.model}</span>
        </Show>
      </div>
      <Show when={activity().length > 0}>
        <StepList items={activity()} />
      </Show>
      <Show when={text()}>
        <Markdown class="reply-text" text={text()} streaming={props.streaming} />
      </Show>
      <Show when={props.streaming}>
        <WorkingLine items={activity()} hasText={text() !== ''} />
      </Show>
      <Show when={!props.streaming && params.id && changedTurn(props.message)}>
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
      <Show when={!props.streaming}>
        <div class="reply-foot">
          <ReplyActions
            text={text()}
            ended={failed() ? 'failed' : 'completed'}
            traceId={meta()?.traceId}
            onResend={props.onResend}
          />
          {/* Feedback is about an answer: a failed or stopped turn has none to judge. */}
          <Show when={!failed() && text() && meta()?.traceId}>
            {(traceId) => <FeedbackButtons traceId={traceId()} sessionId={params.id} />}
          </Show>
        </div>
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
