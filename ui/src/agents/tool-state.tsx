import { Match, Switch } from 'solid-js'
import type { ToolStatus } from '../../../runtime/contracts/agents.ts'

/**
 * The host's answer for one tool, shown beside its checkbox. Unavailable tools say why (the
 * sandbox self-test, a missing service), so the owner learns it here and not from a run that
 * silently went without. A tool added but not saved has no answer until it is saved.
 */
export function ToolState(props: {
  status: ToolStatus | undefined
  saved: boolean
  loaded: boolean
}) {
  return (
    <Switch>
      <Match when={!props.saved}>
        <span class="muted tool-state">checked on save</span>
      </Match>
      <Match when={props.status?.available === false && props.status}>
        {(s) => (
          <span class="badge state-failed tool-state" title={s().reason} data-tool-unavailable>
            unavailable: {s().reason}
          </span>
        )}
      </Match>
      <Match when={props.status?.available && props.status.needsRepository}>
        <span class="muted tool-state">needs a repository</span>
      </Match>
      <Match when={props.status?.available}>
        <span class="muted tool-state">ready</span>
      </Match>
      <Match when={props.loaded}>
        <span class="muted tool-state">not reported by the host</span>
      </Match>
    </Switch>
  )
}
