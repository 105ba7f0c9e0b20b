import { A, useParams } from '@solidjs/router'
import { For, Show, untrack } from 'solid-js'
import type { TaskState } from '../../../runtime/contracts/tasks.ts'
import { LIVE_TASK_STATES } from '../../../runtime/contracts/task-enums.ts'
import { when } from '../components/dates.ts'
import { createPolling } from '../components/polling.ts'
import { StateBadge } from '../components/state-badge.tsx'
import { ErrorNote } from '../components/status.tsx'
import { Empty } from '../components/list-table.tsx'
import { Markdown } from '../markdown/markdown.tsx'
import { createData } from '../queries/data.ts'
import { getTaskBuildEvidence, getTaskWorkflow, refreshTask } from '../queries/tasks.ts'
import { getWorkspaces } from '../queries/workspaces.ts'
import { ActivityItem } from '../tasks/activity-item.tsx'
import { TaskActions } from '../tasks/task-actions.tsx'
import { TaskFields } from '../tasks/task-fields.tsx'
import { stepsLine, stepsOf } from '../tasks/task-summary.ts'
import { TaskUsage } from '../tasks/task-usage.tsx'
import { WorkflowPhases } from '../tasks/workflow-phases.tsx'
import { BuildEvidenceList } from '../tasks/build-evidence.tsx'
import './admin.css'

const LIVE: readonly TaskState[] = LIVE_TASK_STATES

/**
 * One task, its result first: the answer as Markdown, what it ran on and used, and what the owner
 * can do next; the prompt, the fields and the transcript are collapsed below it.
 */
export default function TaskDetail() {
  const params = useParams()
  const workflow = createData(() => getTaskWorkflow(params.id!))
  const workspaces = createData(() => getWorkspaces())
  // Only build-maintenance work records Build evidence; other tasks never ask.
  const evidence = createData(() =>
    workflow.data()?.task.source === 'build-maintenance'
      ? getTaskBuildEvidence(params.id!)
      : undefined,
  )
  const task = () => workflow.data()?.task
  const live = () => {
    const t = task()
    return !!t && LIVE.includes(t.state)
  }
  createPolling(() => refreshTask(params.id!), live)
  const workspace = (id: string) =>
    workspaces.data()?.workspaces.find((w) => w.id === id)?.name ?? id
  const steps = () => stepsOf(workflow.data()?.activity ?? [], task()?.attemptCount ?? 0)

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
            <p class="muted" aria-label="Summary">
              In <strong>{workspace(t().workspaceId)}</strong>
              <Show when={steps().agent}>{(agent) => <> by {agent()}</>}</Show>
              <Show when={stepsLine(steps(), live())}>{(line) => <> · {line()}</>}</Show> ·{' '}
              {t().finishedAt
                ? `finished ${when(t().finishedAt)}`
                : `queued ${when(t().createdAt)}`}
              <br />
              <TaskUsage task={t()} />
            </p>
            <TaskActions task={t()} />
            <Show when={t().waiting}>
              {(waiting) => (
                <p aria-label="Waiting">
                  Waiting for a transient <strong>{waiting().errorClass}</strong> failure to clear;
                  next attempt {when(waiting().nextAttemptAt)}
                </p>
              )}
            </Show>

            <div class="card stack">
              <h2>Result</h2>
              <Show
                when={t().result}
                fallback={<Empty>{live() ? 'No result yet.' : 'This task left no result.'}</Empty>}
              >
                {(result) => (
                  <div aria-label="Result">
                    <Markdown text={result()} />
                  </div>
                )}
              </Show>
            </div>
            <Show when={t().lastError}>
              {(error) => (
                <div class="card stack">
                  <h2>Last error</h2>
                  <p>
                    <StateBadge state="refused">{t().lastErrorClass ?? 'error'}</StateBadge>
                  </p>
                  <pre class="box error">{error()}</pre>
                </div>
              )}
            </Show>
            <Show when={t().resolutionEvidence}>
              {(evidence) => (
                <div class="card stack">
                  <h2>Resolution evidence</h2>
                  <pre class="box">{evidence()}</pre>
                </div>
              )}
            </Show>

            <Show when={(workflow.data()?.phases.length ?? 0) > 0}>
              <WorkflowPhases phases={workflow.data()!.phases} />
            </Show>

            <Show when={(evidence.data()?.evidence.length ?? 0) > 0}>
              <BuildEvidenceList items={evidence.data()!.evidence} />
            </Show>

            <details class="card stack">
              <summary>Prompt and details</summary>
              <TaskFields task={t()} workspace={workspace(t().workspaceId)} />
            </details>
            {/* Open while the task runs, to watch it; never closed under the owner's eyes. */}
            <details class="card stack" open={untrack(live)}>
              <summary>Transcript</summary>
              <Show
                when={(workflow.data()?.activity.length ?? 0) > 0}
                fallback={<Empty>No activity recorded yet.</Empty>}
              >
                <ol class="activity-log" aria-label="Transcript">
                  <For each={workflow.data()?.activity}>{(a) => <ActivityItem item={a} />}</For>
                </ol>
              </Show>
            </details>
          </>
        )}
      </Show>
    </section>
  )
}
