import { A } from '@solidjs/router'
import { Match, Switch } from 'solid-js'
import type { ToolStatus } from '../../../runtime/contracts/agents.ts'
import { createData } from '../queries/data.ts'
import { getWorkspaces } from '../queries/workspaces.ts'

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
  // A repository tool works in the repository of the chat or task that runs it: it is ready
  // while one is registered, and says what is missing when none is.
  const workspaces = createData(() => getWorkspaces())
  const registered = () => workspaces.data()?.workspaces.length
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
      <Match when={props.status?.available && props.status.needsRepository && registered() === 0}>
        <span class="muted tool-state">
          needs a repository: <A href="/workspaces">register one</A>
        </span>
      </Match>
      <Match when={props.status?.available && props.status.needsRepository}>
        <span class="muted tool-state">ready in the chat’s repository</span>
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
