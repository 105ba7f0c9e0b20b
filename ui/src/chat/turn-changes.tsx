import { createAsync } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import { Confirm } from '../components/confirm.tsx'
import { getTurnChanges, undoTurn, type TurnChangesView } from '../queries/turn-changes.ts'
import './turn-changes.css'

/** The tools whose calls may have changed files: only their turns ask for a change set. */
export const WRITING_TOOLS = new Set(['workspace-write', 'workspace-edit', 'shell'])

type FileView = TurnChangesView['files'][number]
type Outcome = NonNullable<TurnChangesView['undo']>[number]

/**
 * The files one assistant turn changed (B3), each with its diff, and an Undo button that puts
 * back exactly the agent's changes: a file changed since by someone else is refused, untouched,
 * and each file's outcome is shown. Nothing shows for a turn that changed no file. A file that
 * makes git or the owner's tools run code later (a `.gitattributes`, a git hook …) is marked, and
 * the turn says so above its list: the agent's shell can write those, and nothing runs them
 * until the owner commits or opens the folder, so this is where the owner gets to look first.
 */
export function TurnChanges(props: { sessionId: string; turnId: string }) {
  const changes = createAsync(() => getTurnChanges(props.sessionId, props.turnId))
  const [confirming, setConfirming] = createSignal(false)
  const [busy, setBusy] = createSignal(false)
  const [error, setError] = createSignal<string>()
  const outcomes = () => new Map((changes()?.undo ?? []).map((o) => [o.path, o]))
  const undoable = () => changes()?.state === 'recorded' && changes()!.files.some((f) => f.undoable)
  const undo = async () => {
    setBusy(true)
    setError(undefined)
    try {
      await undoTurn(props.sessionId, props.turnId)
      setConfirming(false)
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <Show when={changes() && changes()!.total > 0 ? changes() : undefined}>
      {(view) => (
        <section class="turn-changes" aria-label="Files changed in this turn">
          <div class="turn-changes-head">
            <strong>
              {view().total} file{view().total === 1 ? '' : 's'} changed
            </strong>
            <Show when={view().state === 'undone'}>
              <span class="muted">Undone</span>
            </Show>
            <Show when={view().state === 'failed'}>
              <span class="muted">Cannot be undone: {view().error}</span>
            </Show>
            <Show when={undoable() && !confirming()}>
              <button type="button" class="secondary" onClick={() => setConfirming(true)}>
                Undo
              </button>
            </Show>
          </div>
          <Show when={view().runsCodeLater.length > 0}>
            <p class="runs-code" role="note">
              ⚠ This turn changed{' '}
              {view().runsCodeLater.length === 1 ? 'a file that runs' : 'files that run'} code on
              your machine later ({view().runsCodeLater.join(', ')}): review{' '}
              {view().runsCodeLater.length === 1 ? 'it' : 'them'} before you commit or open the
              folder in your editor.
            </p>
          </Show>
          <Show when={confirming()}>
            <Confirm
              message="Put back the files this turn changed? Files changed since the turn are left as they are."
              confirmLabel="Undo turn"
              busy={busy()}
              onConfirm={() => void undo()}
              onCancel={() => setConfirming(false)}
            />
          </Show>
          <Show when={error()}>
            <p class="error" role="alert">
              {error()}
            </p>
          </Show>
          <ul>
            <For each={view().files}>
              {(file) => <FileChange file={file} outcome={outcomes().get(file.path)} />}
            </For>
          </ul>
          <Show when={view().truncated}>
            <p class="muted">
              Showing {view().files.length} of {view().total} files.
            </p>
          </Show>
          <For each={view().limits}>{(limit) => <p class="muted">{limit}</p>}</For>
        </section>
      )}
    </Show>
  )
}

function FileChange(props: { file: FileView; outcome: Outcome | undefined }) {
  return (
    <li class="turn-file" data-path={props.file.path}>
      <details>
        <summary>
          <span class="path">{props.file.path}</span>
          <span class="badge">{props.file.change}</span>
          <Show when={props.file.runsCodeLater}>
            <span class="badge runs-code-badge">runs code later</span>
          </Show>
          <Show when={props.outcome}>
            {(o) => (
              <span class={`outcome outcome-${o().outcome}`} role="status">
                {o().outcome}
                {o().reason ? `: ${o().reason}` : ''}
              </span>
            )}
          </Show>
          <Show when={!props.outcome && !props.file.undoable && props.file.reason}>
            <span class="not-undoable">{props.file.reason}</span>
          </Show>
        </summary>
        <Show when={props.file.runsCodeLater}>
          {(why) => (
            <p class="runs-code">
              Runs code on your machine later: {why()}. Review it before you commit.
            </p>
          )}
        </Show>
        <Show when={props.file.note}>
          <p class="muted">{props.file.note}</p>
        </Show>
        <Show when={props.file.diff}>{(diff) => <DiffView diff={diff()} />}</Show>
      </details>
    </li>
  )
}

/** A unified diff, one line per element, coloured by its first character; never parsed as HTML. */
function DiffView(props: { diff: string }) {
  const lines = () => props.diff.replace(/\n$/, '').split('\n')
  const kind = (line: string) =>
    line.startsWith('@@')
      ? 'hunk'
      : line.startsWith('+++') || line.startsWith('---')
        ? 'hunk'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : 'ctx'
  return (
    <pre class="diff" aria-label="Diff">
      <For each={lines()}>{(line) => <span class={kind(line)}>{line}</span>}</For>
    </pre>
  )
}
