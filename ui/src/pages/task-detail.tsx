import { A, useNavigate, useParams } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import type { TaskState } from '../../../runtime/contracts/tasks.ts'
import {
  CANCELLABLE_TASK_STATES,
  LIVE_TASK_STATES,
  RESOLVABLE_TASK_STATES,
  TERMINAL_TASK_STATES,
} from '../../../runtime/contracts/task-enums.ts'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { when } from '../components/dates.ts'
import { createPolling } from '../components/polling.ts'
import { StateBadge } from '../components/state-badge.tsx'
import { ErrorNote, Notice } from '../components/status.tsx'
import { Empty } from '../components/list-table.tsx'
import { describeError } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import {
  cancelTask,
  deleteTask,
  getTaskWorkflow,
  refreshTask,
  resolveTask,
} from '../queries/tasks.ts'
import { UsageLine } from '../components/usage-cost.tsx'
import { getRunUsage } from '../queries/observability.ts'
import { ActivityItem } from '../tasks/activity-item.tsx'
import { ResolveForm } from '../tasks/resolve-form.tsx'
import { WorkflowPhases } from '../tasks/workflow-phases.tsx'
import './admin.css'

const CANCELLABLE: readonly TaskState[] = CANCELLABLE_TASK_STATES
const RESOLVABLE: readonly TaskState[] = RESOLVABLE_TASK_STATES
const DELETABLE: readonly TaskState[] = TERMINAL_TASK_STATES
const LIVE: readonly TaskState[] = LIVE_TASK_STATES

/** One task: its fields, prompt, result, last error, activity transcript and the actions its state allows. */
export default function TaskDetail() {
  const params = useParams()
  const navigate = useNavigate()
  const workflow = createData(() => getTaskWorkflow(params.id!))
  const task = () => workflow.data()?.task
  createPolling(
    () => refreshTask(params.id!),
    () => {
      const t = task()
      return !!t && LIVE.includes(t.state)
    },
  )
  const [notice, setNotice] = createSignal<string>()
  const [actionError, setActionError] = createSignal<unknown>()
  const act = async (run: () => Promise<unknown>, done: string) => {
    setActionError(undefined)
    setNotice(undefined)
    try {
      await run()
      setNotice(done)
    } catch (err) {
      setActionError(describeError(err, { evidence: 'Evidence' }))
    }
  }

  return (
    <section class="stack admin">
      <p>
        <A href="/tasks">← All tasks</A>
      </p>
      <ErrorNote error={workflow.error()} />
      <Show when={task()}>
        {(t) => (
          <>
            <div class="page-head">
              <h1>{t().title}</h1>
              <StateBadge state={t().state} />
            </div>
            <div class="card stack">
              <dl class="fields">
                <dt>Id</dt>
                <dd class="mono">{t().id}</dd>
                <dt>State</dt>
                <dd>{t().state}</dd>
                <dt>Kind</dt>
                <dd>{t().kind}</dd>
                <dt>Source</dt>
                <dd>{t().source}</dd>
                <dt>Workspace</dt>
                <dd class="mono">{t().workspaceId}</dd>
                <dt>Model</dt>
                <dd>{t().model ?? 'default'}</dd>
                <dt>Attempts</dt>
                <dd>
                  {t().attemptCount} of {t().maxAttempts}
                </dd>
                <TaskUsage taskId={t().id} version={t().attemptCount} />
                <Show when={t().waiting}>
                  {(waiting) => (
                    <>
                      <dt>Waiting</dt>
                      <dd aria-label="Waiting">
                        for a transient <strong>{waiting().errorClass}</strong> failure to clear;
                        next attempt {when(waiting().nextAttemptAt)}
                      </dd>
                    </>
                  )}
                </Show>
                <dt>Created</dt>
                <dd>{when(t().createdAt)}</dd>
                <dt>Finished</dt>
                <dd>{when(t().finishedAt)}</dd>
                <Show when={t().parentTaskId}>
                  {(parent) => (
                    <>
                      <dt>Remediates</dt>
                      <dd>
                        <A href={`/tasks/${parent()}`} class="mono">
                          {parent()}
                        </A>
                      </dd>
                    </>
                  )}
                </Show>
                <Show when={t().scheduleId}>
                  {(schedule) => (
                    <>
                      <dt>Schedule</dt>
                      <dd class="mono">{schedule()}</dd>
                    </>
                  )}
                </Show>
                <Show when={t().resolvedAt}>
                  <dt>Resolved</dt>
                  <dd>{when(t().resolvedAt)}</dd>
                </Show>
              </dl>
            </div>

            <div class="card stack" aria-label="Actions">
              <h2>Actions</h2>
              <div class="actions">
                <Show when={CANCELLABLE.includes(t().state)}>
                  <button
                    type="button"
                    class="secondary"
                    onClick={() => act(() => cancelTask(t().id), 'Cancellation requested.')}
                  >
                    Cancel task
                  </button>
                </Show>
                <Show when={t().state === 'cancelling'}>
                  <span class="muted">Cancelling: waiting for the running attempt to stop…</span>
                </Show>
                <Show when={DELETABLE.includes(t().state)}>
                  <ConfirmAction
                    label="Delete task"
                    question="Delete this task and its transcript?"
                    confirmLabel="Yes, delete"
                    onConfirm={async () => {
                      await deleteTask(t().id)
                      navigate('/tasks')
                    }}
                  />
                </Show>
              </div>
              <Show when={RESOLVABLE.includes(t().state)}>
                <ResolveForm
                  onResolve={(evidence) =>
                    act(() => resolveTask(t().id, evidence), 'Resolved with your evidence.')
                  }
                />
              </Show>
              <Show when={notice()}>{(n) => <Notice>{n()}</Notice>}</Show>
              <ErrorNote error={actionError()} />
            </div>

            <div class="card stack">
              <h2>Prompt</h2>
              <pre class="box">{t().prompt}</pre>
              <Show when={t().result}>
                {(result) => (
                  <>
                    <h2>Result</h2>
                    <pre class="box" aria-label="Result">
                      {result()}
                    </pre>
                  </>
                )}
              </Show>
              <Show when={t().lastError}>
                {(error) => (
                  <>
                    <h2>Last error</h2>
                    <p>
                      <StateBadge state="refused">{t().lastErrorClass ?? 'error'}</StateBadge>
                    </p>
                    <pre class="box error">{error()}</pre>
                  </>
                )}
              </Show>
              <Show when={t().resolutionEvidence}>
                {(evidence) => (
                  <>
                    <h2>Resolution evidence</h2>
                    <pre class="box">{evidence()}</pre>
                  </>
                )}
              </Show>
            </div>

            <Show when={(workflow.data()?.phases.length ?? 0) > 0}>
              <WorkflowPhases phases={workflow.data()!.phases} />
            </Show>

            <div class="card stack">
              <h2>Transcript</h2>
              <Show
                when={(workflow.data()?.activity.length ?? 0) > 0}
                fallback={<Empty>No activity recorded yet.</Empty>}
              >
                <ol class="activity-log" aria-label="Transcript">
                  <For each={workflow.data()?.activity}>{(a) => <ActivityItem item={a} />}</For>
                </ol>
              </Show>
            </div>
          </>
        )}
      </Show>
    </section>
  )
}

/** The task's tokens and cost over all its attempts, from the observability database. */
function TaskUsage(props: { taskId: string; version: number }) {
  const usage = createData(() => getRunUsage({ taskId: props.taskId }, props.version))
  return (
    <>
      <dt>Usage</dt>
      <dd>
        <UsageLine report={usage.data()} label="All attempts" />
      </dd>
    </>
  )
}
