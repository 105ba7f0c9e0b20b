import { A, useNavigate } from '@solidjs/router'
import { createSignal, Show } from 'solid-js'
import type { Task, TaskState } from '../../../runtime/contracts/tasks.ts'
import {
  CANCELLABLE_TASK_STATES,
  RESOLVABLE_TASK_STATES,
  TERMINAL_TASK_STATES,
} from '../../../runtime/contracts/task-enums.ts'
import { useChat } from '../chat/chat-context.tsx'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { ErrorNote, Notice } from '../components/status.tsx'
import { describeError } from '../forms/submission.ts'
import { createSession } from '../queries/sessions.ts'
import { cancelTask, deleteTask, resolveTask, retryTask } from '../queries/tasks.ts'
import { ResolveForm } from './resolve-form.tsx'
import { chatDraft } from './task-summary.ts'

const CANCELLABLE: readonly TaskState[] = CANCELLABLE_TASK_STATES
const RESOLVABLE: readonly TaskState[] = RESOLVABLE_TASK_STATES
const FINISHED: readonly TaskState[] = TERMINAL_TASK_STATES

/**
 * What the owner can do with a task: retry it, carry it on in a chat, read its trace, and the
 * actions its state allows (cancel, delete, resolve with evidence).
 */
export function TaskActions(props: { task: Task }) {
  const navigate = useNavigate()
  const chat = useChat()
  const [notice, setNotice] = createSignal<string>()
  const [error, setError] = createSignal<unknown>()
  const act = async (run: () => Promise<unknown>, done?: string) => {
    setError(undefined)
    setNotice(undefined)
    try {
      await run()
      setNotice(done)
    } catch (err) {
      setError(describeError(err, { evidence: 'Evidence' }))
    }
  }
  const finished = () => FINISHED.includes(props.task.state)
  // The API retries the owner's own agent work only (docs/tasks.md).
  const retryable = () => finished() && props.task.source === 'user' && props.task.kind === 'agent'
  const retry = () => act(async () => navigate(`/tasks/${(await retryTask(props.task.id)).id}`))
  // A new session in the task's workspace, its message box holding the task quoted.
  const continueInChat = () =>
    act(async () => {
      const session = await createSession(props.task.workspaceId)
      chat.setDraft(session.id, chatDraft(props.task))
      navigate(`/sessions/${session.id}`)
    })

  return (
    <div class="stack" aria-label="Actions">
      <div class="actions">
        <Show when={retryable()}>
          <button type="button" onClick={() => void retry()}>
            Retry
          </button>
        </Show>
        <Show when={finished()}>
          <button type="button" class="secondary" onClick={() => void continueInChat()}>
            Continue in chat
          </button>
        </Show>
        <Show when={props.task.traceId}>
          {(trace) => <A href={`/observability/traces/${trace()}`}>Trace of the last attempt</A>}
        </Show>
        <Show when={CANCELLABLE.includes(props.task.state)}>
          <button
            type="button"
            class="secondary"
            onClick={() => act(() => cancelTask(props.task.id), 'Cancellation requested.')}
          >
            Cancel task
          </button>
        </Show>
        <Show when={props.task.state === 'cancelling'}>
          <span class="muted">Cancelling: waiting for the running attempt to stop…</span>
        </Show>
        <Show when={finished()}>
          <ConfirmAction
            label="Delete task"
            question="Delete this task and its transcript?"
            confirmLabel="Yes, delete"
            onConfirm={async () => {
              await deleteTask(props.task.id)
              navigate('/tasks')
            }}
          />
        </Show>
      </div>
      <Show when={RESOLVABLE.includes(props.task.state)}>
        <ResolveForm
          onResolve={(evidence) =>
            act(() => resolveTask(props.task.id, evidence), 'Resolved with your evidence.')
          }
        />
      </Show>
      <Show when={notice()}>{(n) => <Notice>{n()}</Notice>}</Show>
      <ErrorNote error={error()} />
    </div>
  )
}
