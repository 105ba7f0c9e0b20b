import { createMemo, createSignal, For, Show } from 'solid-js'
import type { TraceSpan } from '../../../runtime/contracts/observability.ts'

type Row = TraceSpan & { depth: number; offset: number; width: number; ms: number | null }

/**
 * One trace as a waterfall: each span a row, indented under its parent, its bar placed on the
 * trace's time line. Choosing a row shows its (stored, redacted) input, output and error.
 */
export function Waterfall(props: { spans: TraceSpan[] }) {
  const [open, setOpen] = createSignal<string>()
  const rows = createMemo(() => layout(props.spans))
  return (
    <div class="waterfall" role="table" aria-label="Spans of the trace">
      <For each={rows()}>
        {(row) => (
          <>
            <button
              type="button"
              role="row"
              class="wf-row"
              classList={{ error: row.status === 'error', open: open() === row.spanId }}
              onClick={() => setOpen(open() === row.spanId ? undefined : row.spanId)}
            >
              <span class="wf-name" style={{ 'padding-left': `${row.depth * 1.1}rem` }}>
                {row.name}
                <Show when={row.model && row.inputTokens !== null}>
                  <span class="muted">
                    {' '}
                    {row.inputTokens} in · {row.outputTokens ?? 0} out
                  </span>
                </Show>
              </span>
              <span class="wf-track">
                <span
                  class={`wf-bar ${row.type}`}
                  style={{ left: `${row.offset}%`, width: `${Math.max(row.width, 0.5)}%` }}
                />
              </span>
              <span class="wf-ms">{row.ms === null ? '…' : `${row.ms} ms`}</span>
            </button>
            <Show when={open() === row.spanId}>
              <div class="wf-detail card">
                <Show when={row.error}>
                  <p class="error">{row.error}</p>
                </Show>
                <Show when={row.input}>
                  <h4>Input</h4>
                  <pre>{row.input}</pre>
                </Show>
                <Show when={row.output}>
                  <h4>Output</h4>
                  <pre>{row.output}</pre>
                </Show>
              </div>
            </Show>
          </>
        )}
      </For>
    </div>
  )
}

/** Depth-first order under each parent, with each span's place on the trace's time line (%). */
function layout(spans: TraceSpan[]): Row[] {
  if (spans.length === 0) return []
  const time = (s: string | null) => (s ? Date.parse(s) : NaN)
  const start = Math.min(...spans.map((s) => time(s.startedAt)))
  const end = Math.max(...spans.map((s) => time(s.endedAt ?? s.startedAt)))
  const total = Math.max(end - start, 1)
  const children = new Map<string | null, TraceSpan[]>()
  const ids = new Set(spans.map((s) => s.spanId))
  for (const s of spans) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : null
    children.set(parent, [...(children.get(parent) ?? []), s])
  }
  const rows: Row[] = []
  const visit = (parent: string | null, depth: number) => {
    for (const s of children.get(parent) ?? []) {
      const from = time(s.startedAt)
      const to = s.endedAt ? time(s.endedAt) : end
      rows.push({
        ...s,
        depth,
        offset: ((from - start) / total) * 100,
        width: ((to - from) / total) * 100,
        ms: s.endedAt ? Math.round(to - from) : null,
      })
      visit(s.spanId, depth + 1)
    }
  }
  visit(null, 0)
  return rows
}
