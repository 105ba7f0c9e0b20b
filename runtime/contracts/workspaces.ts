import { z } from 'zod'
import { WorkspaceId } from '../ids.ts'
import { Line } from './fields.ts'

/** A registered repository. `path` is relative to POPAGENT_WORKSPACE_ROOT, already canonical. */
export const Workspace = z.object({
  id: z.string(),
  name: z.string(),
  path: z.string(),
  /**
   * Whether agents' file tools may write the files that make git or the owner's tools run code
   * later (`.gitattributes`, `.gitmodules`, the `core.hooksPath` folder, `.envrc`, VS Code tasks
   * and settings, dev container and pre-commit configuration). Off unless the owner turns it on.
   */
  allowExecTriggerWrites: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Workspace = z.infer<typeof Workspace>

const Name = Line(100).regex(
  /^[\p{L}\p{N}][\p{L}\p{N} ._-]*$/u,
  'letters, digits, spaces, dots, dashes and underscores',
)
// Shape only; the compute host proves the path resolves inside the root.
const RelativePath = z.string().min(1).max(1_000)

export const CreateWorkspaceInput = z.strictObject({ name: Name, path: RelativePath })
export type CreateWorkspaceInput = z.infer<typeof CreateWorkspaceInput>

export const PatchWorkspaceInput = z
  .strictObject({ name: Name, path: RelativePath, allowExecTriggerWrites: z.boolean() })
  .partial()
  .refine((v) => Object.keys(v).length > 0, {
    message: 'give a name, a path or allowExecTriggerWrites',
  })
export type PatchWorkspaceInput = z.infer<typeof PatchWorkspaceInput>

export const WorkspaceParams = z.strictObject({ id: WorkspaceId })

export const RepoBriefQuery = z.strictObject({ q: z.string().trim().min(1).max(500) })
