import { For, Show, type JSX } from 'solid-js'
import { Empty, ListTable } from '../components/list-table.tsx'
import { ErrorNote } from '../components/status.tsx'

/**
 * The Autonomy page's one list shape, imported only by that page (so it stays in its chunk, out
 * of the UI entry): a card with its heading, an optional note, the load error, and either a
 * labelled table of rows or what the list says when it is empty.
 */
export function ListCard<T>(props: {
  title: string
  note?: JSX.Element
  /** The table's accessible name. */
  label: string
  error: unknown
  items: readonly T[] | undefined
  empty: JSX.Element
  /** The header cells, in the order the row's cells come. */
  columns: readonly string[]
  row: (item: T) => JSX.Element
}) {
  return (
    <div class="card stack">
      <h2>{props.title}</h2>
      <Show when={props.note}>
        <p class="muted">{props.note}</p>
      </Show>
      <ErrorNote error={props.error} />
      <Show when={(props.items?.length ?? 0) > 0} fallback={<Empty>{props.empty}</Empty>}>
        <ListTable
          label={props.label}
          head={
            <For each={props.columns}>
              {(c) => <th classList={{ 'hide-narrow': c === 'When' }}>{c}</th>}
            </For>
          }
        >
          <For each={props.items}>{(item) => props.row(item)}</For>
        </ListTable>
      </Show>
    </div>
  )
}

/** Links to the traces a signal, proposal or revision came from (the Observability page). */
export function TraceLinks(props: { traceIds: readonly string[] }) {
  return (
    <For each={props.traceIds}>
      {(t, i) => (
        <a href={`#/observability/traces/${t}`} title={t}>
          trace {i() + 1}{' '}
        </a>
      )}
    </For>
  )
}

/** A snapshot as the owner reads it: the text it carries, and its state. */
export function describe(snapshot: Record<string, unknown> | null): string {
  if (!snapshot) return '(nothing)'
  const text = snapshot.text ?? snapshot.instructions ?? snapshot.content ?? ''
  const state =
    snapshot.state ??
    (snapshot.enabled === undefined ? '' : snapshot.enabled ? 'enabled' : 'disabled')
  return `${state ? `[${String(state)}] ` : ''}${String(text)}`
}

/** A change's before and after, side by side (a proposal's or a revision's). */
export function DiffCell(props: {
  id: string
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
}) {
  return (
    <td class="diff" aria-label={`Diff of ${props.id}`}>
      <del>{describe(props.before)}</del>
      <ins>{describe(props.after)}</ins>
    </td>
  )
}

/** A target cell: its kind, and its key beneath. */
export function TargetCell(props: { kind: string; targetKey: string }) {
  return (
    <td>
      {props.kind}
      <div class="mono">{props.targetKey}</div>
    </td>
  )
}
