import { createHash } from 'node:crypto'
import { constants } from 'node:fs'
import { access } from 'node:fs/promises'
import { join } from 'node:path'
import { and, eq, inArray, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { agents, schedules, tasks, workspaces } from '../../db/schema/index.ts'
import { SUPERVISOR_AGENT_ID } from '../../runtime/agents/supervisor.ts'
import type { ReconcileReport } from '../../runtime/contracts/autonomy.ts'
import { createId } from '../../runtime/ids.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import * as Settings from '../../runtime/settings/index.ts'
import { previewCron } from '../schedules/cron.ts'
import { resolveInside } from '../workspaces/containment.ts'
import { readCheckout } from './checkout-state.ts'

// Reconciles run one at a time across hosts (start, settings changes, the API, the CLI).
export const RECONCILE_LOCK_KEY = 0x73656c66
export const SELF_UPDATE_PROMPT =
  'Find one small, safe improvement to this repository (a bug, a missing test, unclear docs) and ' +
  'make it, or decide that nothing is worth changing now.'
const DEFAULT_MAX_ATTEMPTS = 3

/**
 * Gives every eligible workspace its one system self-update schedule and reports each workspace's
 * eligibility with its reasons. It only ever inserts (`ON CONFLICT DO NOTHING` on the
 * one-per-workspace index): an existing row's timing, enabled state, prompt, model and attempts
 * are the operator's and stay as they are; an ineligible workspace keeps its row but gets no new
 * one. New rows run daily at a time staggered by workspace, so several repositories do not all
 * start at once.
 */
export async function reconcileSelfUpdate(options: {
  db: Db
  workspaceRoot: string
  now?: Date
}): Promise<ReconcileReport> {
  const now = options.now ?? new Date()
  return options.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${RECONCILE_LOCK_KEY})`)
    const policy = await Settings.autonomy.get(tx)
    const roles = await tx
      .select()
      .from(agents)
      .where(inArray(agents.id, [SUPERVISOR_AGENT_ID, 'implementer', 'reviewer']))
    const role = (id: string) => roles.find((r) => r.id === id)
    const shared: string[] = []
    if (!policy.selfUpdateEnabled) shared.push('self-update is off in the autonomy settings')
    if (role(SUPERVISOR_AGENT_ID)?.workspaceAccess !== 'read-write') {
      shared.push('the supervisor needs read-write workspace access')
    }
    const implementer = role('implementer')
    if (implementer?.workspaceAccess !== 'read-write' || !implementer.delegationEligible) {
      shared.push('the implementer must be delegation-eligible with read-write access')
    }
    const reviewer = role('reviewer')
    if (!reviewer?.delegationEligible || reviewer.workspaceAccess === 'none') {
      shared.push('the reviewer must be delegation-eligible with repository access')
    }
    const report: ReconcileReport['workspaces'] = []
    for (const workspace of await tx.select().from(workspaces).orderBy(workspaces.createdAt)) {
      const reasons = [
        ...shared,
        ...(await repositoryReasons(options.workspaceRoot, workspace.path)),
      ]
      const [active] = await tx
        .select({ id: tasks.id })
        .from(tasks)
        .where(
          and(
            eq(tasks.workspaceId, workspace.id),
            eq(tasks.source, 'self-update'),
            inArray(tasks.state, ['queued', 'running', 'cancelling']),
          ),
        )
      if (active) reasons.push(`self-update task ${active.id} is already active here`)
      const eligible = reasons.length === 0
      let created = false
      if (eligible) {
        const cron = staggeredCron(workspace.id)
        const [row] = await tx
          .insert(schedules)
          .values({
            id: createId('schedule'),
            source: 'self-update',
            workspaceId: workspace.id,
            name: 'Self-update',
            cron,
            prompt: SELF_UPDATE_PROMPT,
            maxAttempts: DEFAULT_MAX_ATTEMPTS,
            nextRunAt: new Date(previewCron(cron, { now, count: 1 }).next[0]!),
          })
          .onConflictDoNothing({
            target: schedules.workspaceId,
            where: sql`${schedules.source} = 'self-update'`,
          })
          .returning({ id: schedules.id })
        created = row !== undefined
      }
      const [schedule] = await tx
        .select({ id: schedules.id })
        .from(schedules)
        .where(and(eq(schedules.workspaceId, workspace.id), eq(schedules.source, 'self-update')))
      report.push({
        workspaceId: workspace.id,
        eligible,
        reasons,
        scheduleId: schedule?.id ?? null,
        created,
      })
    }
    return { workspaces: report }
  })
}

/** Daily at a minute and hour (01:00–05:59) derived from the workspace id. */
export function staggeredCron(workspaceId: string): string {
  const hash = createHash('sha256').update(workspaceId).digest()
  return `${hash[0]! % 60} ${1 + (hash[1]! % 5)} * * *`
}

async function repositoryReasons(root: string, path: string): Promise<string[]> {
  let repo: string
  try {
    repo = join(root, await resolveInside(root, path))
  } catch (error) {
    return [`the workspace directory cannot be used: ${errorMessage(error)}`]
  }
  try {
    await access(repo, constants.W_OK)
  } catch {
    return ['the repository is not writable by popagent']
  }
  try {
    const checkout = await readCheckout(repo)
    return checkout.changes.length > 0
      ? [`the checkout has ${checkout.changes.length} uncommitted or untracked change(s)`]
      : []
  } catch (error) {
    return [`not a usable Git repository: ${errorMessage(error).slice(0, 200)}`]
  }
}

/**
 * The start-up reconcile: only while self-update is on (off by default, and then it costs
 * nothing), in the background, a failure logged and never stopping the host.
 */
export async function reconcileAtStart(options: {
  db: Db
  workspaceRoot: string
  log: {
    info(message: string, fields?: Record<string, unknown>): void
    warn(message: string, fields?: Record<string, unknown>): void
  }
}): Promise<void> {
  try {
    if (!(await Settings.autonomy.get(options.db)).selfUpdateEnabled) return
    const report = await reconcileSelfUpdate(options)
    options.log.info('self-update schedules reconciled', {
      eligible: report.workspaces.filter((w) => w.eligible).length,
      created: report.workspaces.filter((w) => w.created).length,
    })
  } catch (error) {
    options.log.warn('self-update reconcile at start failed', { error: errorMessage(error) })
  }
}
