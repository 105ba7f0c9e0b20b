import { eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { docs } from '../../db/schema/index.ts'
import type { ImportDocsResult, ImportedFile } from '../contracts/docs.ts'
import { createId } from '../ids.ts'
import * as Workspaces from '../workspaces/index.ts'
import { DocSlugTaken } from './errors.ts'
import { summaryColumns, toSummary } from './rows.ts'
import { sha256Hex } from './sha256.ts'
import { slugFromPath, titleOf } from './naming.ts'

/**
 * Stores the Markdown files the compute host read from the workspace's repository, in one
 * transaction: each file updates the document imported from the same path (untouched when its text
 * is the same) or becomes a new one. A file whose slug belongs to another document refuses the
 * whole import, so nothing partial is stored.
 */
export async function importFiles(
  db: Db,
  workspaceId: string,
  files: ImportedFile[],
): Promise<ImportDocsResult> {
  await Workspaces.assertExists(db, workspaceId)
  const prepared = await Promise.all(
    files.map(async (f) => ({
      ...f,
      slug: slugFromPath(f.path),
      title: titleOf(f.body, f.path),
      sha: await sha256Hex(f.body),
    })),
  )
  return db.transaction(async (tx) => {
    const existing = await tx.select().from(docs).where(eq(docs.workspaceId, workspaceId))
    const byPath = new Map(existing.filter((d) => d.sourcePath).map((d) => [d.sourcePath!, d]))
    const bySlug = new Map(existing.map((d) => [d.slug, { id: d.id }]))
    const counts = { created: 0, updated: 0, unchanged: 0 }
    const ids: string[] = []
    for (const file of prepared) {
      const previous = byPath.get(file.path)
      if (previous) {
        ids.push(previous.id)
        if (previous.contentSha256 === file.sha && previous.title === file.title) {
          counts.unchanged++
          continue
        }
        await tx
          .update(docs)
          .set({
            title: file.title,
            body: file.body,
            contentSha256: file.sha,
            indexState: 'pending',
            indexError: null,
            updatedAt: new Date(),
          })
          .where(eq(docs.id, previous.id))
        counts.updated++
        continue
      }
      const holder = bySlug.get(file.slug)
      if (holder) {
        throw new DocSlugTaken(
          { slug: file.slug, path: file.path, docId: holder.id },
          {
            message: `${file.path} would be imported as "${file.slug}", which document ${holder.id} already has; rename or delete that document and import again (nothing was imported)`,
          },
        )
      }
      const id = createId('document')
      await tx.insert(docs).values({
        id,
        workspaceId,
        slug: file.slug,
        title: file.title,
        body: file.body,
        source: 'imported',
        sourcePath: file.path,
        contentSha256: file.sha,
      })
      bySlug.set(file.slug, { id })
      ids.push(id)
      counts.created++
    }
    const rows = await tx.select(summaryColumns).from(docs).where(eq(docs.workspaceId, workspaceId))
    const wanted = new Set(ids)
    return { ...counts, documents: rows.filter((r) => wanted.has(r.id)).map(toSummary) }
  })
}
