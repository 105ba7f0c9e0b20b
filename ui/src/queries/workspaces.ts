import { query, revalidate } from '@solidjs/router'
import type {
  CreateWorkspaceInput,
  PatchWorkspaceInput,
} from '../../../runtime/contracts/workspaces.ts'
import { api, ok } from '../api.ts'

/** Registered repositories (the chat's filter, the task and schedule forms, the workspaces page). */
export const getWorkspaces = query(() => ok(api.workspaces.$get()), 'workspaces')

/** A brief is computed for one question: cached per workspace and question. */
export const getRepoBrief = query(
  (id: string, q: string) =>
    ok(api.workspaces[':id']['repo-brief'].$get({ param: { id }, query: { q } })),
  'repo-brief',
)

export async function registerWorkspace(json: CreateWorkspaceInput) {
  const created = await ok(api.workspaces.$post({ json }))
  await revalidate(getWorkspaces.key)
  return created
}

export async function patchWorkspace(id: string, json: PatchWorkspaceInput) {
  const patched = await ok(api.workspaces[':id'].$patch({ param: { id }, json }))
  await revalidate(getWorkspaces.key)
  return patched
}
