import { eq } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { workspaces } from '../../db/schema/index.ts'
import { WorkspaceNotFound } from '../sessions/errors.ts'

/** Throws WORKSPACE_NOT_FOUND unless the workspace is registered. */
export async function assertExists(db: Db, id: string): Promise<void> {
  const [row] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, id))
  if (!row) throw new WorkspaceNotFound({ workspaceId: id })
}
