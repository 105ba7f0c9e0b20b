import { query, revalidate } from '@solidjs/router'
import type { ListMemoriesQuery } from '../../../runtime/contracts/memories.ts'
import { api, ok } from '../api.ts'

type Filter = Partial<Pick<ListMemoriesQuery, 'q' | 'owner'>>

/** Long-term memories, live ones, filtered as the memories page asks. */
export const getMemories = query(
  (filter: Filter) =>
    ok(
      api.memories.$get({
        query: { ...(filter.q && { q: filter.q }), ...(filter.owner && { owner: filter.owner }) },
      }),
    ),
  'memories',
)

/** One memory with its key's history (oldest first). */
export const getMemory = query(
  (id: string) => ok(api.memories[':id'].$get({ param: { id } })),
  'memory',
)

const refresh = () => revalidate([getMemories.key, getMemory.key])

export async function createMemory(content: string) {
  const created = await ok(api.memories.$post({ json: { content } }))
  await refresh()
  return created
}

export async function updateMemory(id: string, content: string) {
  const saved = await ok(api.memories[':id'].$patch({ param: { id }, json: { content } }))
  await refresh()
  return saved
}

export async function deleteMemory(id: string) {
  await ok(api.memories[':id'].$delete({ param: { id } }))
  await refresh()
}
