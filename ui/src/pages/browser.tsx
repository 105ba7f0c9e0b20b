import { A } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import { Empty, ListTable } from '../components/list-table.tsx'
import { ErrorNote } from '../components/status.tsx'
import { createSubmission } from '../forms/submission.ts'
import {
  getBrowserFeatures,
  getBrowserHealth,
  getBrowserSessions,
  handBack,
  refreshBrowser,
  screenshotOf,
  takeOver,
} from '../queries/browser.ts'
import { createData } from '../queries/data.ts'
import { Recordings } from './browser-recordings.tsx'
import './admin.css'

type Part = { ok: boolean; reason?: string | undefined }

/**
 * The browser MCP server as popagent sees it (docs/browser.md): the socket, the MCP server and
 * the browser apart, each with what is wrong; the browser sessions, each with takeover and
 * hand-back and its page on demand; and the features the server lacks, greyed out with the
 * operations it misses.
 */
export default function Browser() {
  const health = createData(() => getBrowserHealth())
  const features = createData(() => getBrowserFeatures())
  const sessions = createData(() => getBrowserSessions())
  const part = (label: string, p: () => Part | undefined, detail?: () => string | undefined) => (
    <li>
      <strong>{label}</strong>{' '}
      <Show when={p()} fallback={<span class="muted">…</span>}>
        <span class={`badge ${p()!.ok ? 'state-completed' : 'state-failed'}`}>
          {p()!.ok ? 'up' : 'down'}
        </span>{' '}
        <span class="muted">{p()!.ok ? (detail?.() ?? '') : p()!.reason}</span>
      </Show>
    </li>
  )
  const h = () => health.data()
  /** Why recording cannot start, or undefined when the server offers it. */
  const recordingUnavailable = () => {
    const f = features.data()
    if (!f) return undefined
    if (!f.connected || !f.features) return 'no browser server is connected'
    const missing = f.features['tracing'] ?? []
    return missing.length > 0 ? `the server lacks ${missing.join(', ')}` : undefined
  }
  return (
    <section class="stack admin">
      <h1>Browser</h1>
      <p class="muted">
        Agents with browser access drive the owner's browser MCP server (run it with{' '}
        <code>popagent browser-server</code>); switch it on under <A href="/settings">Settings</A>.
      </p>
      <div class="card">
        <h2>Health</h2>
        <ErrorNote error={health.error()} />
        <ul aria-label="Browser health">
          {part(
            'Socket',
            () => h()?.socket,
            () => h()?.socket.path,
          )}
          {part(
            'MCP server',
            () => h()?.mcp,
            () => {
              const m = h()?.mcp
              return m?.serverInfo
                ? `${m.serverInfo.name} ${m.serverInfo.version}, ${m.tools} operations`
                : undefined
            },
          )}
          {part('Browser', () => h()?.browser)}
        </ul>
        <button type="button" class="secondary" onClick={() => void refreshBrowser()}>
          Check again
        </button>
      </div>
      <Show when={features.data()?.features}>
        {(all) => (
          <div class="card">
            <h2>Features</h2>
            <ul aria-label="Browser features">
              <For each={Object.entries(all())}>
                {([feature, missing]) => (
                  <li classList={{ muted: missing.length > 0 }}>
                    {feature}
                    {missing.length > 0 ? ` — the server lacks ${missing.join(', ')}` : ''}
                  </li>
                )}
              </For>
            </ul>
            <p class="muted">
              Recordings are Playwright traces (<code>popagent browser-server --recordings</code>);
              open one with <code>npx playwright show-trace</code>.
            </p>
          </div>
        )}
      </Show>
      <h2>Sessions</h2>
      <ErrorNote error={sessions.error()} />
      <Show
        when={(sessions.data()?.sessions.length ?? 0) > 0}
        fallback={<Empty>No browser sessions yet.</Empty>}
      >
        <ListTable
          label="Browser sessions"
          head={
            <>
              <th>Session</th>
              <th>For</th>
              <th>Controller</th>
              <th>Calls</th>
              <th class="hide-narrow">Last operation</th>
              <th>State</th>
              <th>Actions</th>
            </>
          }
        >
          <For each={sessions.data()?.sessions}>
            {(s) => <SessionRow session={s} recordingUnavailable={recordingUnavailable()} />}
          </For>
        </ListTable>
      </Show>
    </section>
  )
}

type SessionView = {
  id: string
  chatSessionId: string | null
  taskId: string | null
  controller: 'agent' | 'human'
  callCount: number
  lastOperation: string | null
  closedAt: string | null
  closeReason: string | null
}

function SessionRow(props: { session: SessionView; recordingUnavailable: string | undefined }) {
  const act = createSubmission()
  const [page, setPage] = createSignal<string>()
  const s = () => props.session
  const open = () => !s().closedAt
  return (
    <tr>
      <td class="mono">{s().id}</td>
      <td>
        <Show when={s().chatSessionId} fallback={<A href={`/tasks/${s().taskId}`}>task</A>}>
          <A href={`/sessions/${s().chatSessionId}`}>chat</A>
        </Show>
      </td>
      <td>{s().controller === 'human' ? 'you (taken over)' : 'agent'}</td>
      <td>{s().callCount}</td>
      <td class="mono hide-narrow">{s().lastOperation ?? ''}</td>
      <td>{open() ? 'open' : `closed: ${s().closeReason ?? ''}`}</td>
      <td>
        <Show when={open()}>
          <div class="row">
            <Show
              when={s().controller === 'agent'}
              fallback={
                <button type="button" onClick={() => void act.run(() => handBack(s().id))}>
                  Hand back
                </button>
              }
            >
              <button type="button" onClick={() => void act.run(() => takeOver(s().id))}>
                Take over
              </button>
            </Show>
            <button
              type="button"
              class="secondary"
              onClick={() => void act.run(async () => setPage(await screenshotOf(s().id)))}
            >
              Show page
            </button>
          </div>
          <Show when={page()}>
            {(src) => (
              <img src={src()} alt={`The page of ${s().id}`} style={{ 'max-width': '100%' }} />
            )}
          </Show>
        </Show>
        <Recordings
          sessionId={s().id}
          open={open()}
          {...(props.recordingUnavailable && { unavailable: props.recordingUnavailable })}
        />
        <ErrorNote error={act.error()} />
      </td>
    </tr>
  )
}
