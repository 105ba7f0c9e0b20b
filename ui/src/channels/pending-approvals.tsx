import { For, onCleanup, Show } from 'solid-js'
import type { Approval } from '../../../runtime/contracts/approvals.ts'
import { Empty, ListTable } from '../components/list-table.tsx'
import { ErrorNote } from '../components/status.tsx'
import { createSubmission } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import { decideApproval, getPendingApprovals, refreshApprovals } from './approvals-queries.ts'

/**
 * Tool calls waiting for the owner (docs/hooks-and-secrets.md, `ask`): the same questions a bound
 * channel conversation gets with buttons, answered here instead. Looked at again every few
 * seconds while the page is open, since a run asks at any time and waits a bounded while.
 */
const REFRESH_MS = 5_000

export function PendingApprovals() {
  const approvals = createData(() => getPendingApprovals())
  // An evolution proposal's question is answered in the Autonomy page's review queue (approving
  // applies the change there; POST /api/approvals/:id refuses it), so it is not listed here.
  const waiting = () =>
    approvals.data()?.approvals.filter((a) => a.kind !== 'evolution-proposal') ?? []
  const timer = setInterval(() => void refreshApprovals(), REFRESH_MS)
  onCleanup(() => clearInterval(timer))
  return (
    <div class="card stack" aria-label="Pending approvals">
      <h2>Waiting for your answer</h2>
      <ErrorNote error={approvals.error()} />
      <Show
        when={waiting().length > 0}
        fallback={<Empty>No tool call is waiting for an answer.</Empty>}
      >
        <ListTable
          label="Pending approvals"
          head={
            <>
              <th>Tool</th>
              <th>Answer</th>
              <th>Arguments</th>
              <th class="hide-narrow">Why</th>
              <th>Until</th>
            </>
          }
        >
          <For each={waiting()}>{(a) => <ApprovalRow approval={a} />}</For>
        </ListTable>
      </Show>
    </div>
  )
}

function ApprovalRow(props: { approval: Approval }) {
  const action = createSubmission()
  const a = () => props.approval
  const answer = (decision: 'allow' | 'deny') =>
    void action.run(() => decideApproval(a().id, decision))
  return (
    <tr>
      <td class="mono">{a().toolName ?? a().kind}</td>
      <td>
        <button type="button" disabled={action.busy()} onClick={() => answer('allow')}>
          Allow
        </button>
        <button type="button" disabled={action.busy()} onClick={() => answer('deny')}>
          Deny
        </button>
        <ErrorNote error={action.error()} />
      </td>
      <td class="mono">{a().summary}</td>
      <td class="hide-narrow">{a().reason ?? ''}</td>
      <td>{new Date(a().expiresAt).toLocaleTimeString()}</td>
    </tr>
  )
}
