/**
 * Project documentation (W7), written once and run against real PostgreSQL (docs.postgres.test.ts)
 * and the embedded database (docs.embedded.test.ts): the API, background indexing into chunks,
 * the full-text leg filtered to one workspace, and an import stored whole or not at all.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { eq, sql } from '../db/drizzle-orm.ts'
import { rowsOf } from '../db/rows.ts'
import type { Db } from '../db/index.ts'
import { docChunks, docs } from '../db/schema/index.ts'
import { DEFAULT_WORKSPACE_ID } from '../db/data-migrations/0002-register-default-workspace.ts'
import { indexPendingDocs } from '../compute-host/docs/indexer.ts'
import * as Docs from '../runtime/docs/index.ts'
import { searchDocText, toHit } from '../runtime/docs/search.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import { quietLog } from './support/stack.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'

type Request = (path: string, init?: RequestInit) => Response | Promise<Response>
export type DocsContext = { request: Request; db: Db; close: () => Promise<void> }

const GUIDE = `# Deploying

Intro to the deploy guide.

## Rollback

To roll back a release, run \`ops/rollback.sh\` with the previous tag. The script drains workers
before it swaps the symlink.

\`\`\`sh
# not a heading: inside a fence
ops/rollback.sh v1.2.3
\`\`\`

## Secrets

Production credentials come from the vault, never from the repository.
`

export function docsSuite(name: string, setup: () => Promise<DocsContext>) {
  describe(name, () => {
    let ctx: DocsContext
    let api: Client['api']['workspaces'][':id']['docs']
    let other: string
    const param = { id: DEFAULT_WORKSPACE_ID }
    before(async () => {
      ctx = await setup()
      api = typedClient(ctx).api.workspaces[':id'].docs
      other = (await Workspaces.create(ctx.db, { name: 'other-repo', path: 'other-repo' })).id
    })
    after(() => ctx.close())
    const index = () => indexPendingDocs(ctx.db, quietLog())
    // The full-text leg itself, on this database (the route asks the compute host, which adds the
    // vector leg: docs-vectors.test.ts and docs-import.test.ts go through it).
    const searchIn = async (id: string, query: string) => ({
      results: (await searchDocText(ctx.db, id, query, 5)).map((r) => toHit(r)),
    })

    test('the full-text indexes take new rows directly, with no pending list for searches to scan', async () => {
      // Both full-text GIN indexes (docs and recall), as both databases migrate them.
      const found = rowsOf<{ name: string; options: string[] | null }>(
        await ctx.db.execute(sql`
          select c.relname as name, c.reloptions as options from pg_class c
          where c.relname in ('popagent_doc_chunks_tsv_idx', 'popagent_recall_items_tsv_idx')
          order by c.relname`),
      )
      assert.deepEqual(found, [
        { name: 'popagent_doc_chunks_tsv_idx', options: ['fastupdate=false'] },
        { name: 'popagent_recall_items_tsv_idx', options: ['fastupdate=false'] },
      ])
    })

    test('a written document is indexed in the background into heading-scoped chunks and found by a paraphrase', async () => {
      const created = await okJson(
        await api.$post({
          param,
          json: { slug: 'guides/deploy', title: 'Deploying', body: GUIDE },
        }),
        201,
      )
      assert.equal(created.source, 'written')
      assert.equal(created.indexState, 'pending')
      // Nothing is searchable until the indexer ran: the API never waited for it.
      assert.deepEqual((await searchIn(DEFAULT_WORKSPACE_ID, 'roll back release')).results, [])
      assert.equal(await index(), 1)
      const chunks = await ctx.db
        .select()
        .from(docChunks)
        .where(eq(docChunks.docId, created.id))
        .orderBy(docChunks.ordinal)
      assert.deepEqual(
        chunks.map((c) => c.headingPath),
        ['Deploying', 'Deploying > Rollback', 'Deploying > Secrets'],
      )
      assert.match(chunks[1]!.content, /not a heading: inside a fence/)
      const indexed = await okJson(
        await api[':docId'].$get({ param: { ...param, docId: created.id } }),
      )
      assert.equal(indexed.indexState, 'indexed')
      assert.equal(indexed.chunkCount, 3)

      // Different words from the passage ("rolling back", "releases"): stemming and any-word match.
      const found = await searchIn(
        DEFAULT_WORKSPACE_ID,
        'how do I undo a bad release by rolling back?',
      )
      assert.equal(found.results[0]?.headingPath, 'Deploying > Rollback')
      assert.equal(found.results[0]?.slug, 'guides/deploy')
      assert.ok(found.results[0]!.excerpt.length <= 601)

      // Another workspace sees none of it.
      assert.deepEqual((await searchIn(other, 'rolling back release')).results, [])
      const foreign = await api[':docId'].$get({ param: { id: other, docId: created.id } })
      assert.equal((await errorJson(foreign, 404)).error.code, 'DOC_NOT_FOUND')
    })

    test('an edit re-indexes only the changed document; a title edit keeps its chunks', async () => {
      const a = await okJson(
        await api.$post({ param, json: { slug: 'a', title: 'A', body: 'alpha words here' } }),
        201,
      )
      const b = await okJson(
        await api.$post({ param, json: { slug: 'b', title: 'B', body: 'bravo words here' } }),
        201,
      )
      await index()
      const chunkIdsOf = async (id: string) =>
        (await ctx.db.select().from(docChunks).where(eq(docChunks.docId, id))).map((c) => c.id)
      const before = await chunkIdsOf(b.id)
      await okJson(
        await api[':docId'].$patch({ param: { ...param, docId: a.id }, json: { body: 'charlie' } }),
      )
      const retitled = await okJson(
        await api[':docId'].$patch({ param: { ...param, docId: b.id }, json: { title: 'B2' } }),
      )
      assert.equal(retitled.indexState, 'indexed')
      assert.equal(await index(), 1)
      assert.deepEqual(await chunkIdsOf(b.id), before)
      assert.equal((await searchIn(DEFAULT_WORKSPACE_ID, 'charlie')).results[0]?.docId, a.id)
      assert.deepEqual((await searchIn(DEFAULT_WORKSPACE_ID, 'alpha')).results, [])
    })

    test('bad input is refused with the field named and nothing stored', async () => {
      const count = async () => (await ctx.db.select().from(docs)).length
      const before = await count()
      const refusals = [
        { slug: 'Has Spaces', title: 'x', body: 'x' },
        { slug: '../escape', title: 'x', body: 'x' },
        { slug: 'ok', title: 'x', body: 'nul \u0000 inside' },
        { slug: 'ok', title: 'x', body: 'x'.repeat(200_001) },
        { slug: 'ok', title: 'x', body: '   ' },
      ]
      for (const json of refusals) {
        const res = await api.$post({ param, json })
        assert.equal(res.status as number, 400, JSON.stringify(json).slice(0, 80))
      }
      const dup = await api.$post({ param, json: { slug: 'a', title: 'again', body: 'x' } })
      assert.equal((await errorJson(dup, 409)).error.code, 'DOC_SLUG_TAKEN')
      assert.equal(await count(), before)
    })

    test('an import updates documents by path, leaves unchanged ones, and stores nothing when one file collides', async () => {
      const files = [
        { path: 'README.md', body: '# Project X\n\nWhat it does.' },
        { path: 'docs/Guides/Getting Started.md', body: 'No heading here.' },
      ]
      const first = await Docs.importFiles(ctx.db, DEFAULT_WORKSPACE_ID, files)
      assert.deepEqual([first.created, first.updated, first.unchanged], [2, 0, 0])
      assert.deepEqual(
        first.documents.map((d) => [d.slug, d.title, d.source, d.sourcePath]).sort(),
        [
          [
            'guides/getting-started',
            'Getting Started',
            'imported',
            'docs/Guides/Getting Started.md',
          ],
          ['readme', 'Project X', 'imported', 'README.md'],
        ],
      )
      const again = await Docs.importFiles(ctx.db, DEFAULT_WORKSPACE_ID, [
        files[0]!,
        { path: files[1]!.path, body: 'Changed text.' },
      ])
      assert.deepEqual([again.created, again.updated, again.unchanged], [0, 1, 1])

      // `docs/a.md` would take slug "a", which a written document holds: all refused.
      const before = (await ctx.db.select().from(docs)).length
      await assert.rejects(
        Docs.importFiles(ctx.db, DEFAULT_WORKSPACE_ID, [
          { path: 'docs/new-one.md', body: 'fresh' },
          { path: 'docs/a.md', body: 'collides' },
        ]),
        /would be imported as "a".*nothing was imported/,
      )
      assert.equal((await ctx.db.select().from(docs)).length, before)
    })
  })
}
