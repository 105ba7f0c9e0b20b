import { eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { workspaces } from '../../db/schema/index.ts'
import type {
  CreateBuildMaintenanceScheduleInput,
  QueueBuildMaintenanceInput,
} from '../contracts/build.ts'
import type { Schedule } from '../contracts/schedules.ts'
import * as Schedules from '../schedules/index.ts'
import type { Task } from '../contracts/tasks.ts'
import { AppError } from '../errors.ts'
import { enqueue, titleOf, toTask } from '../tasks/index.ts'

/** The one workspace build-maintenance runs in (compute-host/build/maintenance.ts checks it too). */
export const BUILD_WORKSPACE = 'AkurAI-Build'

export const BuildDisabled = AppError.define(
  'BUILD_DISABLED',
  409,
  'AkurAI Build is disabled on this host',
)
export const BuildMaintenanceRunning = AppError.define(
  'BUILD_MAINTENANCE_RUNNING',
  409,
  'a build-maintenance task is working in this workspace; chat here waits until it ends',
)
export const BuildWorkspaceMissing = AppError.define(
  'BUILD_WORKSPACE_MISSING',
  409,
  `no workspace named "${BUILD_WORKSPACE}" is registered; build-maintenance runs only there`,
)

/**
 * Queues one `build-maintenance` task in the registered `AkurAI-Build` workspace, refusing with
 * the reason when Build is disabled (`disabledReason`, from the host) or the workspace is not
 * registered. A task already holding the autonomous lease (self-update or build-maintenance) is
 * a 409 AUTONOMOUS_TASK_ACTIVE from the one-autonomous index. The attempt checks both again.
 */
export async function queueBuildMaintenance(
  db: Db,
  input: QueueBuildMaintenanceInput,
  disabledReason: string | undefined,
): Promise<Task> {
  const workspace = await buildWorkspace(db, disabledReason)
  const row = await enqueue(db, {
    source: 'build-maintenance',
    workspaceId: workspace.id,
    title: titleOf(input.prompt),
    prompt: input.prompt,
    model: input.model ?? null,
    ...(input.maxAttempts && { maxAttempts: input.maxAttempts }),
  })
  return toTask(row)
}

/**
 * A `build-maintenance` schedule in the AkurAI-Build workspace, refused as queueing is. Its
 * occurrences meet the scheduler's gate: skipped with the reason while the autonomous lease is
 * held. As every system schedule, only when it runs can be changed later, and it is not deleted
 * through the schedules API.
 */
export async function scheduleBuildMaintenance(
  db: Db,
  input: Omit<CreateBuildMaintenanceScheduleInput, 'cron'> & { cron: Schedules.CheckedCron },
  disabledReason: string | undefined,
): Promise<Schedule> {
  const workspace = await buildWorkspace(db, disabledReason)
  return Schedules.create(db, {
    ...input,
    name: input.name ?? 'AkurAI Build maintenance',
    workspaceId: workspace.id,
    source: 'build-maintenance',
  })
}

async function buildWorkspace(db: Db, disabledReason: string | undefined) {
  if (disabledReason) {
    throw new BuildDisabled({ reason: disabledReason }, { message: disabledReason })
  }
  const [workspace] = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.name, BUILD_WORKSPACE))
  if (!workspace) throw new BuildWorkspaceMissing()
  return workspace
}
