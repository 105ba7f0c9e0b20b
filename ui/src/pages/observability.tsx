import { A } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import type { TraceListQuery, UsageReport } from '../../../runtime/contracts/observability.ts'
import { ErrorNote } from '../components/status.tsx'
import { usd, UsageLine } from '../components/usage-cost.tsx'
import { createData } from '../queries/data.ts'
import { getHealth } from '../queries/health.ts'
import { getSessions } from '../queries/sessions.ts'
import {
  getFeedback,
  getObservabilityHealth,
  getTraces,
  getUsage,
} from '../queries/observability.ts'
import './observability.css'

export { default as TracePage } from './trace.tsx'

/**
 * Observability: what the agents used and cost (per day, model and agent), the traces of turns
 * and tasks, log lines by trace or request id, the owner's feedback, and the health of what the
 * agents depend on (reported here; none of it fails readiness).
 */
export default function Observability() {
  const overall = createData(() => getUsage({ groupBy: 'model' }))
  return (
    <section class="stack observability">
      <h1>Observability</h1>
      <p>
        <UsageLine report={overall.data()} label="Last 30 days" />
      </p>
      <ErrorNote error={overall.error()} />
      <div class="obs-grid">
        <UsageTable groupBy="day" title="Per day" />
        <UsageTable groupBy="model" title="Per model" />
        <UsageTable groupBy="agent" title="Per agent" />
      </div>
      <Traces />
      <Health />
      <Feedback />
    </section>
  )
}

function UsageTable(props: { groupBy: UsageReport['groupBy']; title: string }) {
  const usage = createData(() => getUsage({ groupBy: props.groupBy }))
  return (
    <div class="card">
      <h2>{props.title}</h2>
      <ErrorNote error={usage.error()} />
      <table class="list compact">
        <thead>
          <tr>
            <th>
              {props.groupBy === 'model' ? 'Model' : props.groupBy === 'day' ? 'Day' : 'Agent'}
            </th>
            <Show when={props.groupBy !== 'model'}>
              <th>Model</th>
            </Show>
            <th>In</th>
            <th>Out</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          <For each={usage.data()?.rows} fallback={<EmptyRow cols={5} />}>
            {(r) => (
              <tr>
                <td>{r.key}</td>
                <Show when={props.groupBy !== 'model'}>
                  <td>{r.model}</td>
                </Show>
                <td>{r.inputTokens.toLocaleString()}</td>
                <td>{r.outputTokens.toLocaleString()}</td>
                <td>{r.costUsd === null ? 'no price' : usd(r.costUsd)}</td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
    </div>
  )
}

const EmptyRow = (props: { cols: number }) => (
  <tr>
    <td colSpan={props.cols} class="muted">
      Nothing recorded yet.
    </td>
  </tr>
)

function Traces() {
  const [filters, setFilters] = createSignal<Partial<TraceListQuery>>({})
  const traces = createData(() => getTraces(filters()))
  // Titles of the sessions the list may name (the newest, active and archived), by id.
  const active = createData(() => getSessions('active'))
  const archived = createData(() => getSessions('archived'))
  const titles = () =>
    new Map(
      [...(active.data()?.sessions ?? []), ...(archived.data()?.sessions ?? [])].map((s) => [
        s.id,
        s.title,
      ]),
    )
  const field = (name: 'sessionId' | 'taskId' | 'agentId', label: string) => (
    <label>
      {label}{' '}
      <input
        name={name}
        value={filters()[name] ?? ''}
        onChange={(e) => setFilters({ ...filters(), [name]: e.currentTarget.value || undefined })}
      />
    </label>
  )
  return (
    <div class="card">
      <h2>Traces</h2>
      <div class="row filters">
        {field('sessionId', 'Session')}
        {field('taskId', 'Task')}
        {field('agentId', 'Agent')}
        <label>
          Status{' '}
          <select
            onChange={(e) =>
              setFilters({
                ...filters(),
                status: (e.currentTarget.value || undefined) as TraceListQuery['status'],
              })
            }
          >
            <option value="">any</option>
            <option value="ok">ok</option>
            <option value="error">error</option>
            <option value="running">running</option>
          </select>
        </label>
      </div>
      <ErrorNote error={traces.error()} />
      <table class="list compact">
        <thead>
          <tr>
            <th>Started</th>
            <th>Run</th>
            <th>Status</th>
            <th>Duration</th>
            <th>Session / task</th>
          </tr>
        </thead>
        <tbody>
          <For each={traces.data()?.traces} fallback={<EmptyRow cols={5} />}>
            {(t) => (
              <tr>
                <td>
                  <A href={`/observability/traces/${t.traceId}`}>
                    {new Date(t.startedAt).toLocaleString()}
                  </A>
                </td>
                <td>{t.name}</td>
                <td classList={{ error: t.status === 'error' }}>{t.status}</td>
                <td>{t.durationMs === null ? '…' : `${t.durationMs} ms`}</td>
                <td>
                  <RunSubject taskId={t.taskId} sessionId={t.sessionId} titles={titles()} />
                </td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
    </div>
  )
}

/**
 * What a trace ran for, as the owner knows it: a chat session by its title, linked to the
 * conversation, or a task linked to its page (ids only where the session is gone).
 */
function RunSubject(props: {
  taskId: string | null
  sessionId: string | null
  titles: ReadonlyMap<string, string>
}) {
  return (
    <Show
      when={props.taskId}
      fallback={
        <Show when={props.sessionId}>
          {(id) => (
            <Show when={props.titles.get(id())} fallback={<span class="mono">{id()}</span>}>
              {(title) => <A href={`/sessions/${id()}`}>{title()}</A>}
            </Show>
          )}
        </Show>
      }
    >
      {(id) => (
        <A href={`/tasks/${id()}`} class="mono">
          task {id()}
        </A>
      )}
    </Show>
  )
}

function Health() {
  const obs = createData(() => getObservabilityHealth())
  const health = createData(() => getHealth())
  const mark = (ok: boolean | undefined) => (ok ? 'ok' : ok === false ? 'down' : '…')
  return (
    <div class="card">
      <h2>Health</h2>
      <ErrorNote error={obs.error() ?? health.error()} />
      <dl class="health">
        <dt>Application database</dt>
        <dd>{mark(health.data()?.databases.application.ok)}</dd>
        <dt>Observability database</dt>
        <dd>{mark(health.data()?.databases.observability.ok)}</dd>
        <dt>Trace storage</dt>
        <dd>
          {mark(obs.data()?.storageReady)} · {obs.data()?.written ?? 0} written ·{' '}
          {obs.data()?.dropped ?? 0} dropped
        </dd>
        <dt>Model gateway</dt>
        <dd>{mark(health.data()?.gateway?.reachable)}</dd>
        <dt>Web search (SearXNG)</dt>
        <dd>{mark(obs.data()?.searxng?.ok)}</dd>
      </dl>
    </div>
  )
}

function Feedback() {
  const feedback = createData(() => getFeedback())
  return (
    <div class="card">
      <h2>Feedback</h2>
      <ErrorNote error={feedback.error()} />
      <ul>
        <For each={feedback.data()?.feedback} fallback={<li class="muted">None yet.</li>}>
          {(f) => (
            <li>
              {f.value === 'up' ? '👍 up' : '👎 down'}{' '}
              <A href={`/observability/traces/${f.traceId}`}>{f.createdAt}</A> {f.comment ?? ''}
            </li>
          )}
        </For>
      </ul>
    </div>
  )
}
