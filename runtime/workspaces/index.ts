import { asc, eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { DEFAULT_WORKSPACE_ID } from '../../db/data-migrations/0002-register-default-workspace.ts'
import { schedules, sessions, tasks, workspaces } from '../../db/schema/index.ts'
import type { Workspace } from '../contracts/workspaces.ts'
import { AppError } from '../errors.ts'
import { createId } from '../ids.ts'
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../pg-errors.ts'
import { WorkspaceNotFound } from '../sessions/errors.ts'

export const WorkspaceNameTaken = AppError.define(
  'WORKSPACE_NAME_TAKEN',
  409,
  'a workspace with this name exists',
)
export const WorkspaceInUse = AppError.define(
  'WORKSPACE_IN_USE',
  409,
  'the workspace still has sessions; delete them first (DELETE /api/workspaces/:id/sessions)',
)
/**
 * A registered workspace whose directory is gone (or was never there: the default workspace of an
 * install that is not a Git checkout). Said the same way to the UI, the API and the agents.
 */
export const WorkspaceDirectoryMissing = AppError.define(
  'WORKSPACE_DIRECTORY_MISSING',
  400,
  'the workspace has no repository directory',
)
export const missingDirectoryAdvice = (path: string) =>
  `the workspace's repository directory "${path}" does not exist under the workspace root ` +
  '(POPAGENT_WORKSPACE_ROOT): clone or copy the repository there, or register one that exists ' +
  '(the Workspaces page, or POST /api/workspaces with { "name", "path" })'

export const DefaultWorkspace = AppError.define(
  'DEFAULT_WORKSPACE',
  409,
  'the default workspace cannot be removed',
)

type Row = typeof workspaces.$inferSelect
const toWorkspace = (row: Row): Workspace => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

async function named<T>(name: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new WorkspaceNameTaken({ name })
    throw error
  }
}

/** Throws WORKSPACE_NOT_FOUND unless the workspace is registered. */
export async function assertExists(db: Db, id: string): Promise<void> {
  const [row] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, id))
  if (!row) throw new WorkspaceNotFound({ workspaceId: id })
}

export async function get(db: Db, id: string): Promise<Workspace> {
  const [row] = await db.select().from(workspaces).where(eq(workspaces.id, id))
  if (!row) throw new WorkspaceNotFound({ workspaceId: id })
  return toWorkspace(row)
}

export async function list(db: Db): Promise<Workspace[]> {
  return (await db.select().from(workspaces).orderBy(asc(workspaces.name))).map(toWorkspace)
}

/** Registers a repository; `path` must already be the host-checked canonical path. */
export async function create(db: Db, input: { name: string; path: string }): Promise<Workspace> {
  const [row] = await named(input.name, () =>
    db
      .insert(workspaces)
      .values({ id: createId('workspace'), ...input })
      .returning(),
  )
  return toWorkspace(row!)
}

export async function patch(
  db: Db,
  id: string,
  input: { name?: string; path?: string; allowExecTriggerWrites?: boolean },
): Promise<Workspace> {
  const [row] = await named(input.name, () =>
    db
      .update(workspaces)
      .set({ ...input, updatedAt: sql`now()` })
      .where(eq(workspaces.id, id))
      .returning(),
  )
  if (!row) throw new WorkspaceNotFound({ workspaceId: id })
  return toWorkspace(row)
}

/**
 * Unregisters a workspace (the files stay). The default one stays registered, and one that still
 * has sessions, tasks or schedules is refused, so nothing is left pointing nowhere.
 */
export async function remove(db: Db, id: string): Promise<void> {
  if (id === DEFAULT_WORKSPACE_ID) throw new DefaultWorkspace({ id })
  await db.transaction(async (tx) => {
    const [row] = await tx.select().from(workspaces).where(eq(workspaces.id, id)).for('update')
    if (!row) throw new WorkspaceNotFound({ workspaceId: id })
    const [used] = await tx
      .select({ id: sessions.id })
      .from(sessions)
      .where(eq(sessions.workspaceId, id))
      .limit(1)
    if (used) throw new WorkspaceInUse({ id })
    // Tasks and schedules keep their workspace for good (provenance), so they hold it too.
    const [task] = await tx
      .select({ id: tasks.id })
      .from(tasks)
      .where(eq(tasks.workspaceId, id))
      .limit(1)
    const [schedule] = await tx
      .select({ id: schedules.id })
      .from(schedules)
      .where(eq(schedules.workspaceId, id))
      .limit(1)
    if (task || schedule) {
      throw new WorkspaceInUse(
        { id },
        {
          message:
            'the workspace still has tasks or schedules; delete its schedules and finished tasks first',
        },
      )
    }
    await tx.delete(workspaces).where(eq(workspaces.id, id))
  })
}
