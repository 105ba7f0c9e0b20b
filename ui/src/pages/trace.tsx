import { A, useParams } from '@solidjs/router'
import { For, Show } from 'solid-js'
import { ErrorNote } from '../components/status.tsx'
import { Waterfall } from '../components/waterfall.tsx'
import { UsageLine } from '../components/usage-cost.tsx'
import { createData } from '../queries/data.ts'
import { getLogs, getTrace, getUsage } from '../queries/observability.ts'
import './observability.css'

/** One trace: its spans as a waterfall, what it used and cost, and its log lines. */
export default function Trace() {
  const params = useParams()
  const trace = createData(() => getTrace(params.id!))
  const usage = createData(() => getUsage({ groupBy: 'agent', traceId: params.id!, days: 365 }))
  const logs = createData(() => getLogs({ traceId: params.id! }))
  return (
    <section class="stack observability">
      <p>
        <A href="/observability">← Observability</A>
      </p>
      <h1>
        Trace <span class="mono">{params.id}</span>
      </h1>
      <p>
        <UsageLine report={usage.data()} />
      </p>
      <ErrorNote error={trace.error()} />
      <Show when={trace.data()}>{(t) => <Waterfall spans={t().spans} />}</Show>
      <div class="card">
        <h2>Logs</h2>
        <ul class="log-lines mono">
          <For each={logs.data()?.logs} fallback={<li class="muted">No stored lines.</li>}>
            {(l) => (
              <li classList={{ error: l.level === 'error', warn: l.level === 'warn' }}>
                {l.timestamp} {l.level} {l.message}
              </li>
            )}
          </For>
        </ul>
      </div>
    </section>
  )
}
