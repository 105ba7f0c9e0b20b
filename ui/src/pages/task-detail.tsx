import { A, useNavigate, useParams } from '@solidjs/router'
import { createSignal, For, Match, Show, Switch } from 'solid-js'
import type { TaskActivityRecord, TaskState } from '../../../runtime/contracts/tasks.ts'
import type { BudgetReport } from '../../../runtime/contracts/chat.ts'
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
import { describeError } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import {
  cancelTask,
  deleteTask,
  getTaskWorkflow,
  refreshTask,
  resolveTask,
} from '../queries/tasks.ts'
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

            <div class="card stack">
              <h2>Transcript</h2>
              <Show
                when={(workflow.data()?.activity.length ?? 0) > 0}
                fallback={<p class="muted">No activity recorded yet.</p>}
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

function ResolveForm(props: { onResolve: (evidence: string) => Promise<void> }) {
  const [evidence, setEvidence] = createSignal('')
  return (
    <form
      class="stack"
      onSubmit={async (e) => {
        e.preventDefault()
        await props.onResolve(evidence())
      }}
    >
      <label>
        Evidence that the work is done
        <textarea
          rows={3}
          maxLength={4000}
          required
          value={evidence()}
          onInput={(e) => setEvidence(e.currentTarget.value)}
          placeholder="What fixed it, and where to see it (a commit, a test run, …)"
        />
      </label>
      <div class="actions">
        <button type="submit">Resolve as completed</button>
      </div>
    </form>
  )
}

// Transcript records are free-form objects; these read one field with the type it should have.
const text = (r: Record<string, unknown>, key: string) =>
  typeof r[key] === 'string' ? (r[key] as string) : undefined
const num = (r: Record<string, unknown>, key: string) =>
  typeof r[key] === 'number' ? (r[key] as number) : undefined
const shown = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? '')

/** The budget used so far, as a step or the budget's end recorded it. */
function BudgetLine(props: { record: Record<string, unknown> }) {
  const budget = () => {
    const b = props.record.budget ?? (props.record.used ? props.record : undefined)
    return b && typeof b === 'object' ? (b as Partial<BudgetReport>) : undefined
  }
  return (
    <Show when={budget()?.used}>
      {(used) => (
        <p class="muted">
          budget used: {used().inputTokens} / {budget()?.limits?.inputTokens} input tokens ·{' '}
          {used().outputTokens} / {budget()?.limits?.outputTokens} output tokens ·{' '}
          {used().toolCalls} / {budget()?.limits?.toolCalls} tool calls
          <Show when={budget()?.exhausted}>{(k) => <strong> · ended by {k()}</strong>}</Show>
        </p>
      )}
    </Show>
  )
}

function ActivityItem(props: { item: TaskActivityRecord }) {
  const r = () => props.item.record
  const kind = () => text(r(), 'kind') ?? 'record'
  const status = () => text(r(), 'status')
  const calls = () =>
    Array.isArray(r().toolCalls) ? (r().toolCalls as { tool?: string; arguments?: unknown }[]) : []
  return (
    <li class={`kind-${kind()}`} classList={{ failed: status() === 'failed' }}>
      <div class="record-head">
        <strong>
          <Switch fallback={kind()}>
            <Match when={kind() === 'step'}>
              Step {num(r(), 'step')}
              <Show when={num(r(), 'maxSteps')}>{(max) => <> of {max()}</>}</Show>
            </Match>
            <Match when={kind() === 'tool'}>Tool {text(r(), 'tool')}</Match>
            <Match when={kind() === 'delegation'}>Delegated to {text(r(), 'agentName')}</Match>
            <Match when={kind() === 'repo-brief'}>Repository brief</Match>
            <Match when={kind() === 'usage'}>Token usage</Match>
            <Match when={kind() === 'guard'}>Stopped by the {text(r(), 'tool')}</Match>
            <Match when={kind() === 'budget'}>Budget ended</Match>
          </Switch>
        </strong>
        <Show when={kind() !== 'delegation' && text(r(), 'agentName')}>
          {(agent) => <span class="muted">{agent()}</span>}
        </Show>
        <Show when={status()}>{(s) => <StateBadge state={s()} />}</Show>
        <Show when={text(r(), 'finishReason')}>
          {(reason) => <span class="badge">{reason()}</span>}
        </Show>
        <Show when={num(r(), 'durationMs') !== undefined}>
          <span class="muted">{num(r(), 'durationMs')} ms</span>
        </Show>
        <span class="muted">
          attempt {props.item.attempt} · {when(props.item.createdAt)}
        </span>
      </div>
      <Switch>
        <Match when={kind() === 'step'}>
          <BudgetLine record={r()} />
          <Show when={text(r(), 'text')}>{(t) => <pre class="box">{t()}</pre>}</Show>
          <Show when={calls().length > 0}>
            <ul class="calls">
              <For each={calls()}>
                {(call) => (
                  <li>
                    calls <strong>{call.tool}</strong>{' '}
                    <code class="mono">{shown(call.arguments).slice(0, 300)}</code>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        </Match>
        <Match when={kind() === 'budget'}>
          <BudgetLine record={r()} />
          <Show when={text(r(), 'answer')}>{(t) => <pre class="box">{t()}</pre>}</Show>
        </Match>
        <Match when={kind() === 'tool' || kind() === 'delegation' || kind() === 'guard'}>
          <Show when={r().input !== undefined}>
            <details>
              <summary>Input</summary>
              <pre class="box">{shown(r().input)}</pre>
            </details>
          </Show>
          <Show when={r().output !== undefined}>
            <pre class="box">{shown(r().output)}</pre>
          </Show>
          <Show when={r().error !== undefined}>
            <pre class="box error">{shown(r().error)}</pre>
          </Show>
        </Match>
        <Match when={kind() === 'repo-brief'}>
          <details>
            <summary>Show the brief</summary>
            <pre class="box">{text(r(), 'text')}</pre>
          </details>
        </Match>
        <Match when={kind() === 'usage'}>
          <pre class="box">{shown(r().byModel)}</pre>
        </Match>
        <Match when={true}>
          <pre class="box">{shown(r())}</pre>
        </Match>
      </Switch>
    </li>
  )
}
