import { createMemo } from 'solid-js'
import type { ActivityPart } from './reducer.ts'
import { ticking } from './step-list.tsx'
import { stepsOf, workingOn } from './steps.ts'

/**
 * Under a reply while its turn runs: what the agents are doing now and for how long, so a long
 * wait reads as work, not as a stall. Timed from the turn's first step when it has one (a joined
 * turn started before this page), else from when this page began to show it.
 */
export function WorkingLine(props: { items: ActivityPart[]; hasText: boolean }) {
  const shownAt = Date.now()
  const now = ticking(() => true)
  const started = createMemo(() => {
    const first = props.items[0] && Date.parse(props.items[0].data.startedAt)
    return first && !Number.isNaN(first) ? Math.min(first, shownAt) : shownAt
  })
  return (
    <p class="working" role="status">
      <span class="spinner" aria-hidden="true" />
      <span>{workingOn(stepsOf(props.items), props.hasText)}…</span>
      <span class="muted act-time">{Math.floor(Math.max(0, now() - started()) / 1000)} s</span>
    </p>
  )
}
