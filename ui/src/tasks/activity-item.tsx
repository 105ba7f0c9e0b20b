import { For, Match, Show, Switch } from 'solid-js'
import type { TaskActivityRecord } from '../../../runtime/contracts/tasks.ts'
import { when } from '../components/dates.ts'
import { StateBadge } from '../components/state-badge.tsx'
import { num, shown, text } from './activity-record.ts'
import { BudgetLine } from './budget-line.tsx'

type ModelUsage = { inputTokens?: number; outputTokens?: number }
const usageByModel = (value: unknown) =>
  value && typeof value === 'object' ? Object.entries(value as Record<string, ModelUsage>) : []

/** One record of a task's transcript: a step, a tool call, a delegation, a guard, usage, … */
export function ActivityItem(props: { item: TaskActivityRecord }) {
  const r = () => props.item.record
  const kind = () => text(r(), 'kind') ?? 'record'
  const status = () => text(r(), 'status')
  const calls = () =>
    Array.isArray(r().toolCalls) ? (r().toolCalls as { tool?: string; arguments?: unknown }[]) : []
  return (
    <li class={`kind-${kind()}`} classList={{ failed: status() === 'failed' }}>
      <div class="record-head">
        <strong>
          <Switch fallback={kind()}>
            <Match when={kind() === 'step'}>
              Step {num(r(), 'step')}
              {/* The settings' step limit, not a plan: "of 24" would promise 24 steps. */}
              <Show when={num(r(), 'maxSteps')}>
                {(max) => <span class="muted"> of at most {max()}</span>}
              </Show>
            </Match>
            <Match when={kind() === 'tool'}>Tool {text(r(), 'tool')}</Match>
            <Match when={kind() === 'delegation'}>Delegated to {text(r(), 'agentName')}</Match>
            <Match when={kind() === 'repo-brief'}>Repository brief</Match>
            <Match when={kind() === 'usage'}>Token usage</Match>
            <Match when={kind() === 'guard'}>Stopped by the {text(r(), 'tool')}</Match>
            <Match when={kind() === 'budget'}>Budget ended</Match>
          </Switch>
        </strong>
        <Show when={kind() !== 'delegation' && text(r(), 'agentName')}>
          {(agent) => <span class="muted">{agent()}</span>}
        </Show>
        <Show when={status()}>{(s) => <StateBadge state={s()} />}</Show>
        <Show when={text(r(), 'finishReason')}>
          {(reason) => <span class="badge">{reason()}</span>}
        </Show>
        <Show when={num(r(), 'durationMs') !== undefined}>
          <span class="muted">{num(r(), 'durationMs')} ms</span>
        </Show>
        <span class="muted">
          attempt {props.item.attempt} · {when(props.item.createdAt)}
        </span>
      </div>
      <Switch>
        <Match when={kind() === 'step'}>
          <BudgetLine record={r()} />
          <Show when={text(r(), 'text')}>{(t) => <pre class="box">{t()}</pre>}</Show>
          <Show when={calls().length > 0}>
            <ul class="calls">
              <For each={calls()}>
                {(call) => (
                  <li>
                    calls <strong>{call.tool}</strong>{' '}
                    <code class="mono">{shown(call.arguments).slice(0, 300)}</code>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        </Match>
        <Match when={kind() === 'budget'}>
          <BudgetLine record={r()} />
          <Show when={text(r(), 'answer')}>{(t) => <pre class="box">{t()}</pre>}</Show>
        </Match>
        <Match when={kind() === 'tool' || kind() === 'delegation' || kind() === 'guard'}>
          <Show when={r().input !== undefined}>
            <details>
              <summary>Input</summary>
              <pre class="box">{shown(r().input)}</pre>
            </details>
          </Show>
          <Show when={r().output !== undefined}>
            <pre class="box">{shown(r().output)}</pre>
          </Show>
          <Show when={r().error !== undefined}>
            <pre class="box error">{shown(r().error)}</pre>
          </Show>
        </Match>
        <Match when={kind() === 'repo-brief'}>
          <details>
            <summary>Show the brief</summary>
            <pre class="box">{text(r(), 'text')}</pre>
          </details>
        </Match>
        <Match when={kind() === 'usage'}>
          <ul class="calls">
            <For each={usageByModel(r().byModel)}>
              {([model, used]) => (
                <li>
                  <strong>{model}</strong>: {(used.inputTokens ?? 0).toLocaleString()} tokens in ·{' '}
                  {(used.outputTokens ?? 0).toLocaleString()} out
                </li>
              )}
            </For>
          </ul>
        </Match>
        <Match when={true}>
          <pre class="box">{shown(r())}</pre>
        </Match>
      </Switch>
    </li>
  )
}
