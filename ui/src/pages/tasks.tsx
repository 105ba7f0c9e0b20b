import { A } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import type { ModelsBody } from '../../../runtime/contracts/models.ts'
import type { TaskState } from '../../../runtime/contracts/tasks.ts'
import { LIVE_TASK_STATES, TASK_STATES } from '../../../runtime/contracts/task-enums.ts'
import type { Workspace } from '../../../runtime/contracts/workspaces.ts'
import { when } from '../components/dates.ts'
import { createPolling } from '../components/polling.ts'
import { StateBadge } from '../components/state-badge.tsx'
import { ErrorNote } from '../components/status.tsx'
import { DeliverToField } from '../channels/deliver-to.tsx'
import { Empty, ListTable } from '../components/list-table.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import { getModels } from '../queries/models.ts'
import { createTask, getTasks, refreshTasks } from '../queries/tasks.ts'
import { getWorkspaces } from '../queries/workspaces.ts'
import { firstLine } from '../tasks/first-line.ts'
import './admin.css'

const FILTERS = TASK_STATES
const LIVE: readonly TaskState[] = LIVE_TASK_STATES

/**
 * Background tasks: the live list (polled while work is in flight), each with the first line of
 * its result (or error), and a form to queue one.
 */
export default function Tasks() {
  const [state, setState] = createSignal<TaskState | ''>('')
  const tasks = createData(() => getTasks(state() || undefined))
  const workspaces = createData(() => getWorkspaces())
  const models = createData(() => getModels())
  createPolling(refreshTasks, () => (tasks.data()?.tasks ?? []).some((t) => LIVE.includes(t.state)))
  const workspaceName = (id: string) =>
    workspaces.data()?.workspaces.find((w) => w.id === id)?.name ?? id

  return (
    <section class="stack admin">
      <div class="page-head">
        <h1>Tasks</h1>
        <label>
          Show
          <select
            value={state()}
            onChange={(e) => setState(e.currentTarget.value as TaskState | '')}
          >
            <option value="">all states</option>
            <For each={FILTERS}>{(s) => <option value={s}>{s}</option>}</For>
          </select>
        </label>
      </div>
      <CreateTask workspaces={workspaces.data()?.workspaces ?? []} models={models.data()} />
      <ErrorNote error={tasks.error()} />
      <Show when={tasks.data()}>
        {(list) => (
          <Show
            when={list().tasks.length > 0}
            fallback={<Empty>No tasks{state() ? ` in state ${state()}` : ''} yet.</Empty>}
          >
            <ListTable
              label="Tasks"
              head={
                <>
                  <th>Task</th>
                  <th>State</th>
                  <th class="hide-narrow">Workspace</th>
                  <th class="hide-narrow">Source</th>
                  <th class="hide-narrow">Attempts</th>
                  <th class="nowrap">Created</th>
                </>
              }
            >
              <For each={list().tasks}>
                {(t) => (
                  <tr data-task-id={t.id}>
                    <td>
                      <A href={`/tasks/${t.id}`}>{t.title}</A>
                      <Show when={t.kind === 'remediation'}>
                        {' '}
                        <span class="badge">remediation</span>
                      </Show>
                      <Show when={firstLine(t.result) ?? firstLine(t.lastError)}>
                        {(line) => (
                          <div class="muted" classList={{ error: !t.result }} data-first-line>
                            {line()}
                          </div>
                        )}
                      </Show>
                    </td>
                    <td>
                      <StateBadge state={t.state} />
                      <Show when={t.resolvedAt}>
                        {' '}
                        <span class="badge" title="Resolved by hand with evidence">
                          resolved
                        </span>
                      </Show>
                      <Show when={t.waiting}>
                        {(waiting) => (
                          <>
                            {' '}
                            <span
                              class="badge"
                              title={`Waiting for a transient failure to clear; next attempt ${when(waiting().nextAttemptAt)}`}
                            >
                              waiting: {waiting().errorClass}
                            </span>
                          </>
                        )}
                      </Show>
                    </td>
                    <td class="hide-narrow">{workspaceName(t.workspaceId)}</td>
                    <td class="hide-narrow">{t.source}</td>
                    <td class="hide-narrow">
                      {t.attemptCount}/{t.maxAttempts}
                    </td>
                    <td class="nowrap">{when(t.createdAt)}</td>
                  </tr>
                )}
              </For>
            </ListTable>
          </Show>
        )}
      </Show>
    </section>
  )
}

function CreateTask(props: {
  workspaces: Pick<Workspace, 'id' | 'name'>[]
  models: ModelsBody | undefined
}) {
  const form = createForm({ workspaceId: '', prompt: '', model: '', deliverTo: '' })
  const { busy, error, run } = createSubmission({
    workspaceId: 'Workspace',
    prompt: 'Prompt',
    model: 'Model',
    deliverTo: 'Deliver result to',
  })
  const chosenWorkspace = () => form.values.workspaceId || props.workspaces[0]?.id || ''
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    return run(async () => {
      const { prompt, model, deliverTo } = form.values
      await createTask({
        workspaceId: chosenWorkspace(),
        prompt,
        ...(model && { model }),
        ...(deliverTo && { deliverTo }),
      })
      form.set('prompt', '')
    })
  }
  return (
    <form class="card stack" aria-label="New task" onSubmit={submit}>
      <h2>New task</h2>
      <div class="grid-form">
        <label>
          Workspace
          <select
            value={chosenWorkspace()}
            onChange={(e) => form.set('workspaceId', e.currentTarget.value)}
            required
          >
            <For each={props.workspaces}>{(w) => <option value={w.id}>{w.name}</option>}</For>
          </select>
        </label>
        <label>
          Model
          <select
            value={form.values.model}
            onChange={(e) => form.set('model', e.currentTarget.value)}
          >
            <option value="">Default{props.models ? ` (${props.models.defaultModel})` : ''}</option>
            <For each={props.models?.models ?? []}>{(m) => <option value={m}>{m}</option>}</For>
          </select>
        </label>
        <DeliverToField value={form.values.deliverTo} onChange={(v) => form.set('deliverTo', v)} />
        <label class="wide">
          Prompt
          <textarea
            rows={3}
            value={form.values.prompt}
            onInput={(e) => form.set('prompt', e.currentTarget.value)}
            placeholder="What should the agents do?"
            required
          />
        </label>
      </div>
      <Show when={props.models?.warning}>{(warning) => <p class="field-hint">{warning()}</p>}</Show>
      <div class="actions">
        <button type="submit" disabled={busy()}>
          Queue task
        </button>
      </div>
      <ErrorNote error={error()} />
    </form>
  )
}
