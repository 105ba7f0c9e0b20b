/**
 * Recall's search on both databases (real PostgreSQL: recall-search.postgres.test.ts; the
 * embedded PGlite with pgvector: recall-search.embedded.test.ts), with embeddings from the
 * scripted gateway's /v1/embeddings: the full-text leg finds an exact identifier, the vector leg
 * is used once items are embedded, the current session is left out, a superseded fact is not
 * recalled, and the block stays inside its budget in the same order every time.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Db } from '../db/index.ts'
import { createAdmissionQueue } from '../compute-host/models/admission-queue.ts'
import { createGatewayModels } from '../compute-host/models/gateway-models.ts'
import { createRecall, type Recall } from '../compute-host/recall/recall.ts'
import { hasVectorTable } from '../compute-host/recall/search.ts'
import type { MemorySettings } from '../runtime/contracts/settings.ts'
import * as Memories from '../runtime/memories/index.ts'
import { indexTurnSpan } from '../runtime/memories/recall-items.ts'
import * as Sessions from '../runtime/sessions/index.ts'
import * as Settings from '../runtime/settings/index.ts'
import { startScriptedGateway, type ScriptedGateway } from './support/scripted-gateway.ts'
import { quietLog } from './support/stack.ts'

export type RecallSearchContext = { db: Db; close: () => Promise<void> }

export function recallSearchSuite(name: string, setup: () => Promise<RecallSearchContext>) {
  describe(name, () => {
    let ctx: RecallSearchContext
    let gateway: ScriptedGateway
    let recall: Recall
    let settings: MemorySettings
    let sessionA: string
    let sessionB: string
    // A server without pgvector (the throwaway one `npm test` starts when TEST_DATABASE_URL is
    // unset) has no vector table: recall is then full-text only and says why.
    let vectors: boolean
    before(async () => {
      ctx = await setup()
      vectors = await hasVectorTable(ctx.db)
      gateway = await startScriptedGateway({ embeddingDimensions: 64 })
      const models = createGatewayModels({
        url: gateway.url,
        localModels: { queue: createAdmissionQueue(1), isLocal: () => false },
      })
      recall = createRecall({ db: ctx.db, models, log: quietLog(), redact: (t) => t })
      settings = await Settings.memory.patch(ctx.db, { embeddingModel: 'embed/test' })
      sessionA = (await Sessions.create(ctx.db, {})).id
      sessionB = (await Sessions.create(ctx.db, {})).id
      await indexTurnSpan(ctx.db, {
        sessionId: sessionA,
        turnId: 'trn_a',
        content:
          'Question: why does CI fail?\nAnswer: ERR_PNPM_OUTDATED_LOCKFILE; run pnpm install.',
      })
      await indexTurnSpan(ctx.db, {
        sessionId: sessionB,
        turnId: 'trn_b',
        content: 'Question: where do logs go?\nAnswer: to /var/log/popagent, rotated daily.',
      })
      await Memories.create(ctx.db, { content: 'The owner reviews every migration by hand.' })
      await Memories.retainFact(ctx.db, {
        owner: 'agent',
        agentId: 'coder',
        key: 'ci-runner',
        content: 'CI runs on runner-alpha',
      })
      await Memories.retainFact(ctx.db, {
        owner: 'agent',
        agentId: 'coder',
        key: 'ci-runner',
        content: 'CI moved to runner-omega',
      })
      await recall.catchUp(settings)
    })
    after(async () => {
      await gateway.close()
      await ctx.close()
    })

    test('the full-text leg finds an exact identifier, with its session', async () => {
      const found = await recall.search('ERR_PNPM_OUTDATED_LOCKFILE again', { settings })
      assert.equal(found.mode, vectors ? 'hybrid' : 'full-text')
      if (!vectors) assert.equal(found.note, 'pgvector is not available')
      assert.equal(found.items[0]?.sessionId, sessionA)
      assert.match(found.block ?? '', /ERR_PNPM_OUTDATED_LOCKFILE/)
      assert.match(found.block ?? '', new RegExp(`session ${sessionA}`))
    })

    test('every item was embedded through the gateway, and the vector leg ranks them', async (t) => {
      if (!vectors) return t.skip('this server has no pgvector')
      const embedded = gateway.requests.filter((r) => r.path === '/v1/embeddings')
      assert.ok(embedded.length >= 1)
      // A query sharing no word with any item still finds neighbours above the floor or none;
      // the exact text of an item is its own nearest neighbour.
      const same = await recall.search('Question: where do logs go?', { settings })
      assert.ok(same.items.some((i) => i.sessionId === sessionB && i.vectorRank === 1))
    })

    test('the run’s own session is left out', async () => {
      const found = await recall.search('ERR_PNPM_OUTDATED_LOCKFILE', {
        settings,
        excludeSession: sessionA,
      })
      assert.ok(found.items.every((i) => i.sessionId !== sessionA))
    })

    test('only the head of a superseded fact is recalled', async () => {
      const found = await recall.search('which runner does CI use', { settings })
      const texts = found.items.map((i) => i.text)
      assert.ok(texts.includes('CI moved to runner-omega'), texts.join(' | '))
      assert.ok(!texts.includes('CI runs on runner-alpha'))
    })

    test('without an embedding model recall is full-text only', async () => {
      const found = await recall.search('ERR_PNPM_OUTDATED_LOCKFILE', {
        settings: { ...settings, embeddingModel: null },
      })
      assert.equal(found.mode, 'full-text')
      assert.equal(found.items[0]?.sessionId, sessionA)
    })
  })
}
