import { workspaces } from '../schema/index.ts'
import type { DataMigration } from './types.ts'

/** The default workspace is the popagent checkout itself, under POPAGENT_WORKSPACE_ROOT. */
export const DEFAULT_WORKSPACE_ID = 'wsp_default'

export const registerDefaultWorkspace: DataMigration = {
  name: '0002-register-default-workspace',
  async up(tx) {
    await tx
      .insert(workspaces)
      .values({ id: DEFAULT_WORKSPACE_ID, name: 'popagent', path: 'popagent' })
      .onConflictDoNothing()
  },
}
