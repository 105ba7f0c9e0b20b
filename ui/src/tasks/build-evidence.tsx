import { For, Show } from 'solid-js'
import type { TaskBuildEvidence } from '../../../runtime/contracts/build.ts'
import './workflow-phases.css'

type Item = TaskBuildEvidence['evidence'][number]

const LABEL: Record<Item['kind'], string> = {
  checkout: 'checkout',
  delegation: 'delegated to',
  branch: 'branch',
  'ci-run': 'CI run',
  issue: 'issue',
  comment: 'comment',
  commit: 'accepted commit',
}

const url = (item: Item) => {
  const value = item.detail?.url
  return typeof value === 'string' && /^https?:\/\//.test(value) ? value : undefined
}

/**
 * A build-maintenance task's evidence (docs/build.md): what the Build calls returned and what
 * popagent's own git read, each with the operation and attempt it came from. A link is shown
 * only for an http(s) URL the Build server returned.
 */
export function BuildEvidenceList(props: { items: Item[] }) {
  return (
    <div class="card stack workflow-phases">
      <h2>Build evidence</h2>
      <ol class="activity-log" aria-label="Build evidence">
        <For each={props.items}>
          {(item) => (
            <li>
              <div class="record-head">
                <strong>{LABEL[item.kind]}</strong>
                <code class="mono">{item.reference}</code>
                <span class="muted">
                  <Show when={item.operation}>{(op) => <>{op()} · </>}</Show>attempt {item.attempt}
                </span>
              </div>
              <Show when={url(item)}>
                {(href) => (
                  <a class="evidence" href={href()} rel="noreferrer noopener" target="_blank">
                    {href()}
                  </a>
                )}
              </Show>
            </li>
          )}
        </For>
      </ol>
    </div>
  )
}
