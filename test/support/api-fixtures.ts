/**
 * The two records most API tests start from, made through the typed client so the ids have the
 * type the routes declare and a refused create fails the test where it happened, with the body.
 */
import { okJson, typedClient } from './typed-client.ts'

/** An edge as `typedClient` takes it: the in-process app or the URL of a listening edge. */
type Edge = Parameters<typeof typedClient>[0]

/** Registers a workspace at `path` (relative to the workspace root) and returns its id. */
export async function createWorkspace(edge: Edge, name: string, path = name): Promise<string> {
  const res = await typedClient(edge).api.workspaces.$post({ json: { name, path } })
  return (await okJson(res, 201)).id
}

/** Opens a session (in `workspaceId` when given) and returns its id. */
export async function createSession(edge: Edge, workspaceId?: string): Promise<string> {
  const res = await typedClient(edge).api.sessions.$post({
    json: workspaceId ? { workspaceId } : {},
  })
  return (await okJson(res, 201)).id
}
