import { query, revalidate } from '@solidjs/router'
import type { z } from 'zod'
import type {
  CreateHookInput,
  PatchHookInput,
  TestHookInput,
} from '../../../runtime/contracts/hooks.ts'
import { api, ok } from '../api.ts'

/** The stored hooks, by event and merge order. */
export const getHooks = query(() => ok(api.hooks.$get()), 'hooks')

/** The audit trail of one session's hook runs, newest first. */
export const getSessionHookRuns = query(
  (id: string) => ok(api.sessions[':id'].hooks.$get({ param: { id } })),
  'session-hook-runs',
)

const changed = () => revalidate(getHooks.key)

export async function createHook(json: z.input<typeof CreateHookInput>) {
  const created = await ok(api.hooks.$post({ json }))
  await changed()
  return created
}

export async function patchHook(id: string, json: PatchHookInput) {
  const patched = await ok(api.hooks[':id'].$patch({ param: { id }, json }))
  await changed()
  return patched
}

export async function deleteHook(id: string) {
  await ok(api.hooks[':id'].$delete({ param: { id } }))
  await changed()
}

/** Runs the hook now on a sample event; the answer is its verdict and its audit row. */
export const testHook = (id: string, json: z.input<typeof TestHookInput>) =>
  ok(api.hooks[':id'].test.$post({ param: { id }, json }))
