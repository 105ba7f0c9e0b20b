import { and, asc, eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { docs } from '../../db/schema/index.ts'
import type { CreateDocInput, Doc, DocSummary, PatchDocInput } from '../contracts/docs.ts'
import { createId } from '../ids.ts'
import * as Workspaces from '../workspaces/index.ts'
import { DocNotFound } from './errors.ts'
import { slugged } from './slugged.ts'
import { summaryColumns, toDoc, toSummary } from './rows.ts'
import { sha256Hex } from './sha256.ts'

export { importFiles } from './import.ts'
export { DocNotFound, DocSlugTaken } from './errors.ts'

/**
 * A workspace's documents (W7). Every call names the workspace and every query filters by it, so
 * a document id from another workspace is simply not found. A change of text marks the document
 * `pending`; the compute host's indexer re-chunks it in the background.
 */

export async function list(db: Db, workspaceId: string): Promise<DocSummary[]> {
  await Workspaces.assertExists(db, workspaceId)
  const rows = await db
    .select(summaryColumns)
    .from(docs)
    .where(eq(docs.workspaceId, workspaceId))
    .orderBy(asc(docs.slug))
  return rows.map(toSummary)
}

export async function get(db: Db, workspaceId: string, docId: string): Promise<Doc> {
  const [row] = await db
    .select()
    .from(docs)
    .where(and(eq(docs.workspaceId, workspaceId), eq(docs.id, docId)))
  if (!row) throw new DocNotFound({ workspaceId, docId })
  return toDoc(row)
}

export async function create(db: Db, workspaceId: string, input: CreateDocInput): Promise<Doc> {
  await Workspaces.assertExists(db, workspaceId)
  const [row] = await slugged(input.slug, async () =>
    db
      .insert(docs)
      .values({
        id: createId('document'),
        workspaceId,
        ...input,
        source: 'written',
        contentSha256: await sha256Hex(input.body),
      })
      .returning(),
  )
  return toDoc(row!)
}

export async function patch(
  db: Db,
  workspaceId: string,
  docId: string,
  input: PatchDocInput,
): Promise<Doc> {
  const current = await get(db, workspaceId, docId)
  const sha = input.body === undefined ? undefined : await sha256Hex(input.body)
  const textChanged = sha !== undefined && sha !== (await sha256Hex(current.body))
  const [row] = await slugged(input.slug, () =>
    db
      .update(docs)
      .set({
        ...input,
        ...(textChanged && { contentSha256: sha, indexState: 'pending', indexError: null }),
        updatedAt: new Date(),
      })
      .where(and(eq(docs.workspaceId, workspaceId), eq(docs.id, docId)))
      .returning(),
  )
  if (!row) throw new DocNotFound({ workspaceId, docId })
  return toDoc(row)
}

export async function remove(db: Db, workspaceId: string, docId: string): Promise<void> {
  const gone = await db
    .delete(docs)
    .where(and(eq(docs.workspaceId, workspaceId), eq(docs.id, docId)))
    .returning({ id: docs.id })
  if (gone.length === 0) throw new DocNotFound({ workspaceId, docId })
}
