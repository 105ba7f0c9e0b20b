import { Hono } from 'hono'
import {
  CreateDocInput,
  DocParams,
  DocSearchInput,
  PatchDocInput,
  WorkspaceDocsParams,
} from '../../runtime/contracts/docs.ts'
import * as Docs from '../../runtime/docs/index.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * A workspace's documentation (W7), mounted under /api/workspaces. Writes mark a document for
 * the compute host's background indexer and answer at once; the import asks the host, which owns
 * the filesystem, for the repository's Markdown and stores all of it or none.
 */
export const docs = new Hono<AppEnv>()
  .get('/:id/docs', validate('param', WorkspaceDocsParams), async (c) =>
    c.json({ docs: await Docs.list(c.var.db, c.req.valid('param').id) }, 200),
  )
  .post(
    '/:id/docs',
    validate('param', WorkspaceDocsParams),
    validate('json', CreateDocInput),
    async (c) =>
      c.json(await Docs.create(c.var.db, c.req.valid('param').id, c.req.valid('json')), 201),
  )
  .post('/:id/docs/import', validate('param', WorkspaceDocsParams), async (c) => {
    const workspace = await Workspaces.get(c.var.db, c.req.valid('param').id)
    const { files } = await c.var.host.workspaceMarkdown({ path: workspace.path })
    return c.json(await Docs.importFiles(c.var.db, workspace.id, files), 200)
  })
  .post(
    '/:id/docs/search',
    validate('param', WorkspaceDocsParams),
    validate('json', DocSearchInput),
    async (c) => {
      const { id } = c.req.valid('param')
      await Workspaces.assertExists(c.var.db, id)
      const signal = c.req.raw.signal
      return c.json(
        await c.var.host.docsSearch({ workspaceId: id, ...c.req.valid('json') }, { signal }),
        200,
      )
    },
  )
  .get('/:id/docs/:docId', validate('param', DocParams), async (c) => {
    const { id, docId } = c.req.valid('param')
    return c.json(await Docs.get(c.var.db, id, docId), 200)
  })
  .patch(
    '/:id/docs/:docId',
    validate('param', DocParams),
    validate('json', PatchDocInput),
    async (c) => {
      const { id, docId } = c.req.valid('param')
      return c.json(await Docs.patch(c.var.db, id, docId, c.req.valid('json')), 200)
    },
  )
  .delete('/:id/docs/:docId', validate('param', DocParams), async (c) => {
    const { id, docId } = c.req.valid('param')
    await Docs.remove(c.var.db, id, docId)
    return c.json({ deleted: docId }, 200)
  })
