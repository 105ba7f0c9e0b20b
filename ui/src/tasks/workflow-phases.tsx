import { For, Show } from 'solid-js'
import type { TaskWorkflow } from '../../../runtime/contracts/tasks.ts'
import { StateBadge } from '../components/state-badge.tsx'
import './workflow-phases.css'

type Phase = TaskWorkflow['phases'][number]

const text = (output: Phase['output'], key: string): string | undefined => {
  const value = output?.[key]
  return typeof value === 'string' ? value : undefined
}

/**
 * A self-update task's workflow (latest attempt): each phase with its state and one line of
 * evidence, and for inspect-change the patch with the digest the reviewer had to echo.
 */
export function WorkflowPhases(props: { phases: Phase[] }) {
  return (
    <div class="card stack workflow-phases">
      <h2>Workflow</h2>
      <ol class="activity-log" aria-label="Workflow phases">
        <For each={props.phases}>
          {(phase) => (
            <li class={`phase-${phase.name}`} classList={{ failed: phase.state === 'failed' }}>
              <div class="record-head">
                <strong>{phase.name}</strong>
                <StateBadge state={phase.state} />
                <span class="muted">attempt {phase.attempt}</span>
              </div>
              <p class="evidence">{phase.evidence}</p>
              <Show when={phase.name === 'inspect-change' && text(phase.output, 'digest')}>
                {(digest) => (
                  <>
                    <p>
                      Patch digest <code class="mono">{digest()}</code>
                    </p>
                    <details>
                      <summary>Patch</summary>
                      <pre class="mono">{text(phase.output, 'patch')}</pre>
                    </details>
                  </>
                )}
              </Show>
            </li>
          )}
        </For>
      </ol>
    </div>
  )
}
