import { createSignal, For, Show, type Signal } from 'solid-js'
import type { Hook, HookRun, HookVerdict } from '../../../runtime/contracts/hooks.ts'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { Empty, ListTable } from '../components/list-table.tsx'
import { ErrorNote } from '../components/status.tsx'
import { createSubmission } from '../forms/submission.ts'
import { EditHook } from '../hooks/hook-edit.tsx'
import { CreateHook } from '../hooks/hook-form.tsx'
import { createData } from '../queries/data.ts'
import { deleteHook, getHooks, getSessionHookRuns, patchHook, testHook } from '../queries/hooks.ts'
import './admin.css'

/**
 * Hooks: the stored ones by event, each with enable, test-run and delete; a form for a new one;
 * and the audit trail of a session's hook runs.
 */
export default function Hooks() {
  const hooks = createData(() => getHooks())
  const [verdict, setVerdict] = createSignal<HookVerdict>()
  // By id, at the page: a row rebuilt when the list reloads stays in the state it was in.
  const editing = createSignal<string>()
  return (
    <section class="stack">
      <h1>Hooks</h1>
      <ErrorNote error={hooks.error()} />
      <Show when={(hooks.data()?.hooks.length ?? 0) > 0} fallback={<Empty>No hooks yet.</Empty>}>
        <ListTable
          label="Hooks"
          head={
            <>
              <th>Name</th>
              <th>Event</th>
              <th>Tools</th>
              <th class="hide-narrow">Target</th>
              <th>Priority</th>
              <th>Enabled</th>
              <th>Actions</th>
            </>
          }
        >
          <For each={hooks.data()?.hooks}>
            {(h) => <HookRow hook={h} onVerdict={setVerdict} editing={editing} />}
          </For>
        </ListTable>
      </Show>
      <Show when={verdict()}>
        {(v) => (
          <div class="card stack" role="status" aria-label="Test run">
            <h2>Test run: {v().decision}</h2>
            <Show when={v().reason}>{(r) => <p>{r()}</p>}</Show>
            <Runs runs={v().runs} />
          </div>
        )}
      </Show>
      <CreateHook />
      <SessionAudit />
    </section>
  )
}

function HookRow(props: {
  hook: Hook
  onVerdict: (v: HookVerdict) => void
  editing: Signal<string | undefined>
}) {
  const action = createSubmission()
  const h = () => props.hook
  const editing = () => props.editing[0]() === h().id
  const setEditing = (on: boolean) => props.editing[1](on ? h().id : undefined)
  return (
    <tr>
      <td>
        <Show when={editing()} fallback={h().name}>
          <EditHook hook={h()} onDone={() => setEditing(false)} />
        </Show>
      </td>
      <td>{h().event}</td>
      <td class="mono">{h().matcher}</td>
      <td class="mono hide-narrow">{h().kind === 'command' ? h().command?.join(' ') : h().url}</td>
      <td>{h().priority}</td>
      <td>
        <input
          type="checkbox"
          aria-label={`Enable ${h().name}`}
          checked={h().enabled}
          onChange={(e) => {
            const enabled = e.currentTarget.checked
            void action.run(() => patchHook(h().id, { enabled }))
          }}
        />
      </td>
      <td>
        <button
          type="button"
          aria-label={`Edit ${h().name}`}
          onClick={() => setEditing(!editing())}
        >
          Edit
        </button>
        <button
          type="button"
          aria-label={`Test ${h().name}`}
          disabled={action.busy()}
          onClick={() =>
            void action.run(async () =>
              props.onVerdict(await testHook(h().id, { toolName: 'shell', input: {} })),
            )
          }
        >
          Test
        </button>
        <ConfirmAction
          label="Delete"
          name={`Delete ${h().name}`}
          question={`Delete the hook ${h().name}? Its audit rows stay.`}
          confirmLabel="Delete hook"
          onConfirm={() => deleteHook(h().id)}
        />
        <ErrorNote error={action.error()} />
      </td>
    </tr>
  )
}

function SessionAudit() {
  const [sessionId, setSessionId] = createSignal('')
  const [asked, setAsked] = createSignal<string>()
  const runs = createData(() => {
    const id = asked()
    return id ? getSessionHookRuns(id) : undefined
  })
  return (
    <div class="card stack">
      <h2>Audit</h2>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault()
          setAsked(sessionId().trim())
        }}
      >
        <input
          aria-label="Session id"
          placeholder="ses_…"
          value={sessionId()}
          onInput={(e) => setSessionId(e.currentTarget.value)}
        />
        <button type="submit">Show runs</button>
      </form>
      <ErrorNote error={runs.error()} />
      <Show when={runs.data()}>{(d) => <Runs runs={d().runs} />}</Show>
    </div>
  )
}

function Runs(props: { runs: HookRun[] }) {
  return (
    <Show when={props.runs.length > 0} fallback={<Empty>No hook runs.</Empty>}>
      <ListTable
        label="Hook runs"
        head={
          <>
            <th>Hook</th>
            <th>Event</th>
            <th>Tool</th>
            <th>Outcome</th>
            <th>Reason</th>
            <th class="hide-narrow">ms</th>
          </>
        }
      >
        <For each={props.runs}>
          {(r) => (
            <tr>
              <td>{r.hookName}</td>
              <td>{r.event}</td>
              <td class="mono">{r.toolName ?? ''}</td>
              <td>{r.failure ? `${r.outcome} (${r.failure})` : r.outcome}</td>
              <td>{r.reason ?? ''}</td>
              <td class="hide-narrow">{r.durationMs ?? ''}</td>
            </tr>
          )}
        </For>
      </ListTable>
    </Show>
  )
}
