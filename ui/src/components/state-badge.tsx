import type { JSX } from 'solid-js'

/** A coloured state pill (task states, enabled/disabled, access levels). */
export function StateBadge(props: { state: string; children?: JSX.Element }) {
  return <span class={`badge state-${props.state}`}>{props.children ?? props.state}</span>
}
