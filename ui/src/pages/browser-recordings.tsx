import { createSignal, For, Show } from 'solid-js'
import { ErrorNote } from '../components/status.tsx'
import { createSubmission } from '../forms/submission.ts'
import {
  deleteRecording,
  downloadRecording,
  getBrowserRecordings,
  startRecording,
  stopRecording,
} from '../queries/browser.ts'
import { createData } from '../queries/data.ts'

const size = (bytes: number | null) =>
  bytes === null
    ? ''
    : bytes < 1024 * 1024
      ? `${Math.ceil(bytes / 1024)} KiB`
      : `${(bytes / 1048576).toFixed(1)} MiB`

/**
 * A browser session's recordings (Playwright traces, docs/browser.md): start and stop while the
 * session is open, download or delete one that is kept. Loaded when opened. Greyed out with the
 * reason when the connected server lacks the tracing operations (`unavailable`).
 */
export function Recordings(props: { sessionId: string; open: boolean; unavailable?: string }) {
  const [shown, setShown] = createSignal(false)
  const list = createData(() => (shown() ? getBrowserRecordings(props.sessionId) : undefined))
  const act = createSubmission()
  const recording = () => list.data()?.recordings.some((r) => r.state === 'recording') ?? false
  return (
    <details onToggle={(e) => setShown(e.currentTarget.open)}>
      <summary>Recordings</summary>
      <Show when={props.open}>
        <div class="row">
          <Show
            when={recording()}
            fallback={
              <button
                type="button"
                class="secondary"
                disabled={props.unavailable !== undefined || act.busy()}
                title={props.unavailable}
                onClick={() => void act.run(() => startRecording(props.sessionId))}
              >
                Start recording
              </button>
            }
          >
            <button
              type="button"
              disabled={act.busy()}
              onClick={() => void act.run(() => stopRecording(props.sessionId))}
            >
              Stop recording
            </button>
          </Show>
        </div>
      </Show>
      <Show when={props.unavailable}>
        {(why) => <p class="muted">Recording is unavailable: {why()}.</p>}
      </Show>
      <ErrorNote error={list.error() ?? act.error()} />
      <ul aria-label={`Recordings of ${props.sessionId}`}>
        <For each={list.data()?.recordings} fallback={<li class="muted">None yet.</li>}>
          {(r) => (
            <li>
              <span class="mono">{new Date(r.startedAt).toLocaleString()}</span>{' '}
              <span class="badge">{r.state}</span> {size(r.bytes)}{' '}
              <span class="muted">{r.error ?? r.stopReason ?? ''}</span>{' '}
              <Show when={r.state === 'ready'}>
                <button
                  type="button"
                  class="secondary"
                  onClick={() => void act.run(() => downloadRecording(r.id))}
                >
                  Download
                </button>
              </Show>
              <Show when={r.state !== 'recording'}>
                <button
                  type="button"
                  class="secondary"
                  onClick={() => void act.run(() => deleteRecording(props.sessionId, r.id))}
                >
                  Delete
                </button>
              </Show>
            </li>
          )}
        </For>
      </ul>
    </details>
  )
}
