import { eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { liveTurns, sessions } from '../../db/schema/index.ts'
import { recordBuildEvidence, type BuildEvidence } from '../../runtime/build/evidence.ts'
import { BUILD_WORKSPACE } from '../../runtime/build/maintenance.ts'
import { AppError } from '../../runtime/errors.ts'
import type { TaskRow } from '../../runtime/tasks/index.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import type { Logger } from '../log.ts'
import { repositoryOf } from '../runs/preflight.ts'
import type { RunObserver } from '../runs/run-events.ts'
import { requireCleanCheckout, type CheckoutState } from '../self-update/checkout-state.ts'
import { TaskFailure } from '../tasks/error-classes.ts'
import type { AttemptContext, TaskExecutor } from '../tasks/runner.ts'
import { acceptCheckout } from './checkout-acceptance.ts'
import type { BuildClient } from './client.ts'
import { buildEvidenceObserver } from './evidence.ts'
import { holdWorkspace } from './workspace-lease.ts'

export { BUILD_WORKSPACE }
/** The specialists every build-maintenance attempt must have delegated to, and finished. */
export const MAINTENANCE_ROLES = ['build-maintainer', 'reviewer'] as const

/** One attempt's evidence as it is recorded: written in order, awaited before the policy. */
type Collector = {
  seen: BuildEvidence[]
  writes: Promise<void>
  record: (row: BuildEvidence) => void
}

/**
 * The `build-maintenance` task source (issue 40, docs/build.md). An attempt:
 *
 * 1. is refused, as `configuration` with the reason, when Build is disabled (no
 *    AKURAI_BUILD_API_KEY, or a URL the client refuses) or when the task's workspace is not the
 *    registered `AkurAI-Build` workspace (with a usable Git checkout);
 * 2. waits (a transient `interrupted`, retried later) while a chat turn is live in that
 *    workspace: autonomous and interactive work do not overlap there. Self-update and other
 *    build-maintenance work are kept out by the autonomous lease the task already holds (the
 *    one-autonomous index, migration 0031), from the moment it was queued;
 * 3. records the clean checkout it starts from (HEAD, branch) as evidence, refusing a dirty one;
 * 4. runs through the ordinary task path (budgets and the unattended cost cap, hooks, guards,
 *    tracing) with the supervisor told to delegate to the Build maintainer and the independent
 *    reviewer and to queue CI only for the exact reviewed ref; an observer records what the
 *    `build-*` calls returned (branch, CI run, issue, comment) and each finished delegation;
 * 5. completes only if both roles were delegated to and finished, and the checkout is the same
 *    commit or an allowed descendant (checkout-acceptance.ts) — a new commit also needs a CI run
 *    whose answer names that exact commit. The accepted commit is recorded as evidence.
 *
 * Build promotion stays refused in every task run (tools.ts), so this never promotes or deploys.
 */
export function createBuildMaintenanceExecutor(deps: {
  db: Db
  workspaceRoot: string
  log: Logger
  build: Pick<BuildClient, 'disabledReason'>
  /** The ordinary task attempt, given this source's observers (createTaskAttempts). */
  attempts: (observers: (task: TaskRow, context: AttemptContext) => RunObserver[]) => TaskExecutor
}): TaskExecutor {
  const collectors = new WeakMap<AttemptContext, Collector>()
  // The attempt's context names its collector, so concurrent attempts never mix evidence.
  const run = deps.attempts((_task, context) => {
    const collector = collectors.get(context)
    return collector ? [buildEvidenceObserver(collector.record)] : []
  })

  return async (task, context) => {
    const log = deps.log.child({ taskId: task.id, attempt: context.attempt })
    if (deps.build.disabledReason) {
      throw new TaskFailure(
        'configuration',
        `build-maintenance refused: ${deps.build.disabledReason}`,
      )
    }
    const workspace = await Workspaces.get(deps.db, task.workspaceId)
    if (workspace.name !== BUILD_WORKSPACE) {
      throw new TaskFailure(
        'configuration',
        `build-maintenance refused: it runs only in the registered "${BUILD_WORKSPACE}" workspace, not "${workspace.name}"`,
      )
    }
    const { root, missing } = await repositoryOf({ ...deps, log }, workspace)
    if (!root) throw new TaskFailure('configuration', `build-maintenance refused: ${missing}`)
    // Held first, then checked: a chat turn starting now sees the hold (workspace-lease.ts).
    const release = holdWorkspace(workspace.id)
    try {
      if (await interactiveTurnIn(deps.db, workspace.id)) {
        throw new TaskFailure(
          'interrupted',
          `a chat turn is running in "${BUILD_WORKSPACE}"; build-maintenance waits for it to end`,
        )
      }
      return await maintain(task, context, root, log)
    } finally {
      release()
    }
  }

  async function maintain(task: TaskRow, context: AttemptContext, root: string, log: Logger) {
    const start = await startCheckout(root)

    const collector: Collector = {
      seen: [],
      writes: Promise.resolve(),
      record(row) {
        collector.seen.push(row)
        collector.writes = collector.writes.then(() =>
          recordBuildEvidence(deps.db, { ...row, taskId: task.id, attempt: context.attempt }).catch(
            (error: unknown) => log.error('build evidence write failed', { error }),
          ),
        )
      },
    }
    const record = collector.record
    collectors.set(context, collector)
    record({
      kind: 'checkout',
      reference: start.head,
      operation: null,
      detail: { branch: start.branch, at: 'start' },
    })
    try {
      const { result } = await run({ ...task, prompt: framed(task.prompt) }, context)
      await collector.writes
      const delegated = new Set(
        collector.seen.filter((e) => e.kind === 'delegation').map((e) => e.reference),
      )
      const absent = MAINTENANCE_ROLES.filter((role) => !delegated.has(role))
      if (absent.length > 0) {
        throw new TaskFailure(
          'validation',
          `build-maintenance needs the Build maintainer and the independent reviewer; not delegated to (or not finished): ${absent.join(', ')}`,
        )
      }
      const { commit } = await acceptCheckout(start)
      if (commit) {
        const verified = collector.seen.some(
          (e) => e.kind === 'ci-run' && (e.detail?.commit === commit || e.detail?.sha === commit),
        )
        if (!verified) {
          throw new TaskFailure(
            'validation',
            `build-maintenance refused commit ${commit}: no CI run was queued for that exact commit`,
          )
        }
        record({ kind: 'commit', reference: commit, operation: null, detail: { base: start.head } })
      }
      await collector.writes
      return { result }
    } finally {
      collectors.delete(context)
      await collector.writes
    }
  }
}

/**
 * The runner's one executor: a `build-maintenance` task's own attempts go through `build`,
 * everything else (and its remediations, which run the ordinary path) through `other`.
 */
export function buildMaintenanceOr(build: TaskExecutor, other: TaskExecutor): TaskExecutor {
  return (task, context) =>
    task.source === 'build-maintenance' && task.kind !== 'remediation'
      ? build(task, context)
      : other(task, context)
}

function framed(prompt: string): string {
  return (
    `Build maintenance in the "${BUILD_WORKSPACE}" workspace (unattended).\n` +
    '1. Delegate the work to build-maintainer.\n' +
    '2. Delegate an independent review of what it changed to reviewer.\n' +
    '3. Only after the review approves, have build-maintainer queue CI for the exact reviewed ' +
    'branch or commit, never another ref.\n' +
    'Report every branch, run, issue and comment id the Build tools returned. Never release, ' +
    'promote or deploy.\n\n' +
    `Task: ${prompt}`
  )
}

async function startCheckout(root: string): Promise<CheckoutState> {
  try {
    return await requireCleanCheckout(root)
  } catch (error) {
    if (error instanceof AppError) {
      throw new TaskFailure('containment', `build-maintenance refused: ${error.message}`, {
        cause: error,
      })
    }
    throw error
  }
}

async function interactiveTurnIn(db: Db, workspaceId: string): Promise<boolean> {
  const [row] = await db
    .select({ one: sql<number>`1` })
    .from(liveTurns)
    .innerJoin(sessions, eq(sessions.id, liveTurns.sessionId))
    .where(eq(sessions.workspaceId, workspaceId))
    .limit(1)
  return row !== undefined
}
