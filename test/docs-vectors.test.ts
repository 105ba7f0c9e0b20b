/**
 * The vector leg of documentation search (W7) on real PostgreSQL with pgvector: the host's indexer
 * embeds chunks through the gateway's /v1/embeddings, search fuses both legs within one workspace,
 * and an embedding outage is reported on the documents and answered from full text, then healed.
 */
import assert from 'node:assert/strict'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { sql } from '../db/drizzle-orm.ts'
import { createEmbedPass } from '../compute-host/docs/embed-pass.ts'
import { docSearchDeps } from '../compute-host/docs/search-deps.ts'
import { rowsOf } from '../db/rows.ts'
import { createWorkspace } from './support/api-fixtures.ts'
import { quietLog, startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient, type Client } from './support/typed-client.ts'
import { waitFor } from './support/until.ts'
import { pgvectorMissing } from './support/pgvector.ts'

const NO_VECTORS = await pgvectorMissing()

describe('documentation search with vectors', { skip: NO_VECTORS }, () => {
  let stack: TestStack
  let api: Client['api']
  let mine: string
  let theirs: string
  before(async () => {
    stack = await startTestStack()
    api = typedClient(stack.edge()).api
    for (const dir of ['mine', 'theirs']) {
      await mkdir(join(stack.host.resources.workspaceRoot, dir))
    }
    mine = await createWorkspace(stack.edge(), 'mine')
    theirs = await createWorkspace(stack.edge(), 'theirs')
    await okJson(await api.settings.memory.$patch({ json: { embeddingModel: 'embed/test' } }))
  })
  after(() => stack.stop())

  const db = () => stack.host.resources.databases.application.db
  const write = async (id: string, slug: string, body: string) =>
    okJson(
      await api.workspaces[':id'].docs.$post({ param: { id }, json: { slug, title: slug, body } }),
      201,
    )
  const docOf = async (id: string, docId: string) =>
    okJson(await api.workspaces[':id'].docs[':docId'].$get({ param: { id, docId } }))
  const vectorsOf = async (docId: string) =>
    rowsOf<{ n: number }>(
      await db().execute(sql`select count(*)::int as n from popagent_doc_vectors v
        join popagent_doc_chunks c on c.id = v.chunk_id where c.doc_id = ${docId}`),
    )[0]!.n
  const search = async (id: string, query: string) =>
    okJson(
      await api.workspaces[':id'].docs.search.$post({ param: { id }, json: { query, limit: 5 } }),
    )

  test('chunks are embedded in the background and both legs stay inside the workspace', async () => {
    const text = 'Quarterly capacity planning happens in the second week.'
    const a = await write(mine, 'planning', `# Planning\n\n${text}\n`)
    const b = await write(theirs, 'planning', `# Planning\n\n${text}\n`)
    for (const doc of [a, b]) {
      await waitFor(
        async () => ((await vectorsOf(doc.id)) > 0 ? true : undefined),
        15_000,
        'vectors',
      )
    }
    const found = await search(mine, text)
    assert.match(found.method, /full text and vectors \(embed\/test\)/)
    assert.ok(found.results.length > 0)
    assert.deepEqual(new Set(found.results.map((r) => r.docId)), new Set([a.id]))
    const embedRequests = stack.gateway.requests.filter((r) => r.path === '/v1/embeddings')
    assert.ok(embedRequests.some((r) => JSON.stringify(r.body.input).includes('capacity planning')))
  })

  test('an embedding outage is reported on the document and search answers from full text', async () => {
    stack.gateway.failEmbeddings(503)
    try {
      const c = await write(mine, 'outage', '# Outage\n\nThe failover drill runs on Tuesdays.\n')
      const noted = await waitFor(
        async () => {
          const doc = await docOf(mine, c.id)
          return doc.indexError?.startsWith('vectors missing') ? doc : undefined
        },
        20_000,
        'the vectors-missing note',
      )
      assert.equal(noted.indexState, 'indexed')
      assert.match(noted.indexError!, /full-text search still finds this document/)
      const found = await search(mine, 'failover drill')
      assert.match(found.method, /^full text only: the embedding failed/)
      assert.equal(found.results[0]?.docId, c.id)
    } finally {
      stack.gateway.failEmbeddings(undefined)
    }
    // Healed: the next pass (here without the pause the host waits) embeds it and clears the note.
    await createEmbedPass(docSearchDeps(stack.host.resources, quietLog()), 0)()
    const healed = (await okJson(await api.workspaces[':id'].docs.$get({ param: { id: mine } })))
      .docs
    assert.ok(
      healed.every((d) => d.indexError === null),
      JSON.stringify(healed),
    )
  })

  test('the local model reorders the candidates; an unusable answer keeps the fusion order', async () => {
    const isRerank = (r: { body?: any }) =>
      JSON.stringify(r.body?.messages ?? '').includes('Order these documentation passages')
    const query = 'capacity planning and the failover drill'
    let answer = 'I cannot say'
    stack.gateway.respondWith((r) => (isRerank(r) ? { text: answer } : undefined))
    try {
      const fusion = await search(mine, query)
      assert.ok(fusion.results.length >= 2)
      assert.match(fusion.method, /reranking by titan\/\S+ failed \(the answer named no passage/)
      answer = '2, 1'
      const reranked = await search(mine, query)
      assert.match(reranked.method, /; reranked by titan\//)
      const where = (r: { docId: string; headingPath: string; excerpt: string }) =>
        `${r.docId} ${r.headingPath} ${r.excerpt}`
      assert.notEqual(where(fusion.results[0]!), where(fusion.results[1]!))
      assert.deepEqual(reranked.results.slice(0, 2).map(where), [
        where(fusion.results[1]!),
        where(fusion.results[0]!),
      ])
      const asked = stack.gateway.requests.filter(isRerank).at(-1)!
      assert.match(asked.body.model, /^titan\//)
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })
})
