import type { ReconcileReport } from '../../runtime/contracts/autonomy.ts'
import { serverApi } from '../server-api.ts'
import { formatTable } from '../table.ts'
import { errorMessage } from '../../runtime/error-message.ts'

/**
 * `popagent automation-reconcile [--json]`: asks a running popagent to give each eligible workspace
 * its self-update schedule (never changing an existing one) and prints each workspace's
 * eligibility with its reasons.
 */
export async function automationReconcile(env: Record<string, string | undefined>, args: string[]) {
  if (args.some((a) => a !== '--json')) {
    console.error('usage: popagent automation-reconcile [--json]')
    process.exitCode = 2
    return
  }
  try {
    const { api, ok } = serverApi(env)
    const body = await ok(api.autonomy.reconcile.$post())
    if (args.includes('--json')) {
      process.stdout.write(`${JSON.stringify(body, null, 2)}\n`)
      return
    }
    process.stdout.write(formatReconcile(body))
  } catch (error) {
    console.error(`popagent automation-reconcile: ${errorMessage(error)}`)
    process.exitCode = 1
  }
}

export function formatReconcile(report: ReconcileReport): string {
  if (report.workspaces.length === 0) return 'no workspaces\n'
  return formatTable([
    ['WORKSPACE', 'ELIGIBLE', 'SCHEDULE', 'REASONS'],
    ...report.workspaces.map((w) => [
      w.workspaceId,
      w.eligible ? 'yes' : 'no',
      w.scheduleId ? `${w.scheduleId}${w.created ? ' (new)' : ''}` : '-',
      w.reasons.join('; ') || '-',
    ]),
  ])
}
