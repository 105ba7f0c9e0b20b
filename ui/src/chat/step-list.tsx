import {
  createEffect,
  createMemo,
  createSignal,
  Index,
  onCleanup,
  Show,
  type Accessor,
} from 'solid-js'
import type { ActivityPart } from './reducer.ts'
import { RecallOutput } from './recall-output.tsx'
import { elapsed, pretty, stepsOf, stepTime, type Step } from './steps.ts'

/**
 * The agents' work on a reply as steps: one line each (agent, action, state, time), opened for
 * its detail. Context steps (recall, repository brief) and finished steps stay closed; a failed
 * or denied step opens, since its reason is what the owner needs. Rows are kept by position
 * (items never reorder), so a step the owner opened stays open while the turn streams.
 */
export function StepList(props: { items: ActivityPart[] }) {
  const steps = createMemo(() => stepsOf(props.items))
  const now = ticking(() => steps().some((s) => s.state === 'running'))
  return (
    <ul class="activity steps" aria-label="Agent activity">
      <Index each={steps()}>{(step) => <StepLine step={step()} now={now()} />}</Index>
    </ul>
  )
}

const STATE_LABELS: Record<Step['state'], string> = {
  running: 'running',
  completed: 'done',
  failed: 'failed',
  denied: 'denied',
}

function StepLine(props: { step: Step; now: number }) {
  const d = () => props.step.data
  const time = () => stepTime(d(), props.now)
  const opens = () => props.step.state === 'failed' || props.step.state === 'denied'
  return (
    <li
      class={`act act-${props.step.state}`}
      classList={{ 'act-context': props.step.context }}
      data-kind={props.step.context ? 'context' : d().kind}
    >
      <details open={opens()}>
        <summary class="act-head">
          <span class="act-agent">{d().agentName}</span>
          <span class="act-what">{props.step.action}</span>
          <Show when={props.step.current}>
            <span class="act-current">→ {props.step.current}</span>
          </Show>
          <span class={`badge act-status status-${props.step.state}`}>
            {STATE_LABELS[props.step.state]}
          </span>
          <Show when={time() !== undefined}>
            <span class="muted act-time">{elapsed(time()!)}</span>
          </Show>
        </summary>
        <div class="act-detail">
          <Show when={d().input}>
            {(input) => (
              <>
                <span class="act-label">{d().kind === 'delegation' ? 'Task' : 'Arguments'}</span>
                <pre class="act-input">{pretty(input())}</pre>
              </>
            )}
          </Show>
          <Show
            when={props.step.denyReason}
            fallback={
              <Show when={d().error}>
                <pre class="act-error">{d().error}</pre>
              </Show>
            }
          >
            {(reason) => <p class="act-error act-deny">The hook denied this call: {reason()}</p>}
          </Show>
          {/* A denied call's output is the instruction written for the model: the reason says it. */}
          <Show when={!props.step.denyReason && d().output}>
            {(output) => (
              <>
                <span class="act-label">Result</span>
                <Show
                  when={d().tool === 'recall'}
                  fallback={<pre class="act-output">{pretty(output())}</pre>}
                >
                  <RecallOutput text={output()} />
                </Show>
              </>
            )}
          </Show>
        </div>
      </details>
    </li>
  )
}

/** The time now, once a second while `active`: running steps count up without a new chunk. */
export function ticking(active: Accessor<boolean>): Accessor<number> {
  const [now, setNow] = createSignal(Date.now())
  createEffect(() => {
    if (!active()) return
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), 1000)
    onCleanup(() => clearInterval(timer))
  })
  return now
}
