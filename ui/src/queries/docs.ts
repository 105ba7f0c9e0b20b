import { query, revalidate } from '@solidjs/router'
import type {
  CreateDocInput,
  DocSearchInput,
  PatchDocInput,
} from '../../../runtime/contracts/docs.ts'
import { api, ok } from '../api.ts'

/** A workspace's documentation (W7): the list, one document, and search as the agents see it. */
export const getDocs = query(
  (workspaceId: string) => ok(api.workspaces[':id'].docs.$get({ param: { id: workspaceId } })),
  'docs',
)

export const getDoc = query(
  (workspaceId: string, docId: string) =>
    ok(api.workspaces[':id'].docs[':docId'].$get({ param: { id: workspaceId, docId } })),
  'doc',
)

/** The list and the document change together (index state, title, text). */
const staleAfter = (workspaceId: string, docId?: string) => [
  getDocs.keyFor(workspaceId),
  ...(docId ? [getDoc.keyFor(workspaceId, docId)] : []),
]

export const refreshDocs = (workspaceId: string) => revalidate(getDocs.keyFor(workspaceId))

export async function createDoc(workspaceId: string, json: CreateDocInput) {
  const created = await ok(api.workspaces[':id'].docs.$post({ param: { id: workspaceId }, json }))
  await revalidate(staleAfter(workspaceId))
  return created
}

export async function patchDoc(workspaceId: string, docId: string, json: PatchDocInput) {
  const saved = await ok(
    api.workspaces[':id'].docs[':docId'].$patch({ param: { id: workspaceId, docId }, json }),
  )
  await revalidate(staleAfter(workspaceId, docId))
  return saved
}

export async function deleteDoc(workspaceId: string, docId: string) {
  await ok(api.workspaces[':id'].docs[':docId'].$delete({ param: { id: workspaceId, docId } }))
  await revalidate(staleAfter(workspaceId))
}

export async function importDocs(workspaceId: string) {
  const result = await ok(api.workspaces[':id'].docs.import.$post({ param: { id: workspaceId } }))
  await revalidate(getDocs.keyFor(workspaceId))
  return result
}

/** Not cached: each search is asked for, and answers what the index holds now. */
export const searchDocs = (workspaceId: string, json: DocSearchInput) =>
  ok(api.workspaces[':id'].docs.search.$post({ param: { id: workspaceId }, json }))
