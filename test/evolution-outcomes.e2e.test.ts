/**
 * Agent evolution's guards on what it keeps and spends (issue 39 §5, issue 41 §2), on a real
 * stack with the scripted gateway: every run is recorded per agent with its failure classes, and
 * a learned change after which a scripted agent's failure rate rises is reverted by evolution
 * itself, while one whose rate does not rise is kept; a proposal that carries a value that became
 * a vault secret after it was held is refused at approval and set aside redacted; decided
 * proposals are pruned after the signals' retention; a reflection that could pass the unattended
 * cost cap is not made, and one that fits is sent with its output bound.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { eq } from '../db/drizzle-orm.ts'
import type { FailureClass } from '../db/evolution-enums.ts'
import type { Db } from '../db/index.ts'
import {
  evolutionProposals,
  evolutionRevisions,
  evolutionRuns,
  evolutionSignals,
  learnedOverlays,
} from '../db/schema/index.ts'
import { REFLECTOR_MARKER } from '../compute-host/evolution/reflection.ts'
import { MIN_FAILURES_AFTER, RUN_WINDOW } from '../compute-host/evolution/regressions.ts'
import { OUTPUT_RESERVE_TOKENS } from '../compute-host/runs/cost-cap.ts'
import { recordRun } from '../runtime/evolution/runs.ts'
import { recordSignal } from '../runtime/evolution/signals.ts'
import { markRoles, messagesOf } from './support/chat.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'
import { until } from './support/until.ts'

type Script = { strategy: string; catalogId?: string | null; confidence?: number }

describe('agent evolution: outcomes, approval and cost', () => {
  let stack: TestStack
  let db: Db
  let reflection: Script = { strategy: 'no-action' }
  const api = () => typedClient(stack.edge()).api
  const isReflector = (r: RecordedRequest) =>
    JSON.stringify(messagesOf(r)).includes(REFLECTOR_MARKER)
  const reflectorRequests = () => stack.gateway.requests.filter(isReflector)

  before(async () => {
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    db = stack.host.resources.databases.application.db
    await markRoles(stack, ['orchistrator'])
    await okJson(
      await api().settings.autonomy.$patch({
        json: { evolutionEnabled: true, skillCreationEnabled: true, automaticFactRetention: true },
      }),
      200,
    )
    stack.gateway.respondWith((r) => {
      if (isReflector(r)) {
        const cited = [...JSON.stringify(messagesOf(r)).matchAll(/Signal (evs_[0-9A-Z]+)/g)]
        return {
          text: JSON.stringify({
            catalogId: null,
            factKey: null,
            fact: null,
            confidence: 0.9,
            ...reflection,
            evidenceSignalIds: cited.map((m) => m[1]),
            rationale: 'scripted',
          }),
          usage: { promptTokens: 1_000, completionTokens: 100 },
        }
      }
      // Asked to map the repository, the agent loops until its budget stops it (a failure);
      // anything else it answers (a run that went well).
      const user = JSON.stringify(messagesOf(r).filter((m) => m.role === 'user'))
      if (user.includes('Map the repository') && (r.body?.tools ?? []).length > 0) {
        return { toolCalls: [{ name: 'repo-brief', arguments: { query: `q${Math.random()}` } }] }
      }
      return { text: 'done' }
    })
  })
  after(() => stack.stop())

  const runWorker = async () => okJson(await api().autonomy.evolution.run.$post(), 200)
  const revisions = async () => (await okJson(await api().autonomy.revisions.$get(), 200)).revisions
  const signals = async () =>
    (await okJson(await api().autonomy.signals.$get({ query: { limit: 200 } }), 200)).signals

  async function runTask(prompt: string, budget?: { budgetToolCalls: number }) {
    const created = await okJson(
      await api().tasks.$post({
        json: { prompt, model: 'remote/a', workspaceId: 'wsp_default', ...(budget && { budget }) },
      }),
      201,
    )
    let task
    await until(
      async () => {
        task = (
          await okJson(await api().tasks[':id'].workflow.$get({ param: { id: created.id } }), 200)
        ).task
        return ['failed', 'completed'].includes(task.state)
      },
      20_000,
      `task ${created.id} to end`,
    )
    return task!
  }
  /** One run of the scripted agent that went well, or one that failed (budget-exhausted). */
  const runs = async (good: number, failed: number) => {
    for (let i = 0; i < good; i++) assert.equal((await runTask('Say hello')).state, 'completed')
    for (let i = 0; i < failed; i++) {
      const task = await runTask('Map the repository layout', { budgetToolCalls: 1 })
      assert.equal(task.state, 'failed')
    }
  }
  /** Runs recorded for the supervisor so far, and how many of them failed with `failureClass`. */
  async function recorded(failureClass: FailureClass) {
    const rows = await db
      .select()
      .from(evolutionRuns)
      .where(eq(evolutionRuns.agentId, 'orchistrator'))
    return {
      runs: rows.length,
      failed: rows.filter((r) => r.failureClasses.includes(failureClass)).length,
    }
  }

  test('a change after which the scripted agent fails more often is reverted by evolution itself', async () => {
    await runs(RUN_WINDOW - 2, 2)
    // Each task's run is recorded once, the failed ones with their class (the signal's and the
    // run's own row meet on the trace id).
    await until(async () => (await recorded('budget-exhausted')).failed === 2, 10_000, 'runs')
    assert.deepEqual(await recorded('budget-exhausted'), { runs: RUN_WINDOW, failed: 2 })

    reflection = { strategy: 'overlay-apply', catalogId: 'smaller-steps' }
    const applied = await runWorker()
    assert.equal(applied.revisions.length, 1)
    const change = applied.revisions[0]!

    // Nine runs after it, four failed: the window is not full, nothing is judged yet.
    reflection = { strategy: 'no-action' }
    await runs(6, 3)
    await until(async () => (await recorded('budget-exhausted')).failed === 5, 10_000, 'runs')
    assert.deepEqual((await runWorker()).reverted, [])
    assert.equal((await db.select().from(learnedOverlays)).length, 1)

    // The tenth: 4 of 10 failed after the change against 2 of 10 before it.
    await runs(0, 1)
    await until(async () => (await recorded('budget-exhausted')).failed === 6, 10_000, 'runs')
    const measured = await runWorker()
    assert.equal(measured.reverted.length, 1)
    const list = await revisions()
    const compensating = list.find((r) => r.id === measured.reverted[0])
    assert.equal(compensating?.revertsRevisionId, change)
    assert.match(
      compensating?.rationale ?? '',
      /failure rate rose .*4 of the 10 runs after it, 40 %, against 2 of the 10 runs before, 20 %/,
    )
    assert.equal(list.find((r) => r.id === change)?.revertedBy, compensating?.id)
    // The list shows how the change measured.
    assert.deepEqual(list.find((r) => r.id === change)?.measured, {
      window: RUN_WINDOW,
      classes: ['budget-exhausted'],
      runsBefore: 10,
      failuresBefore: 2,
      runsAfter: 10,
      failuresAfter: 4,
    })
    assert.equal((await db.select().from(learnedOverlays)).length, 0, 'the overlay is gone')
  })

  /** Runs of the supervisor recorded through the domain function, `failed` of them with a signal. */
  async function plantedRuns(good: number, failed: number, subject: string) {
    for (let i = 0; i < good; i++) {
      await recordRun(db, randomBytes(16).toString('hex'), ['orchistrator'])
    }
    for (let i = 0; i < failed; i++) {
      await recordSignal(
        db,
        {
          agentId: 'orchistrator',
          kind: 'task-failed',
          failureClass: 'timeout',
          traceId: randomBytes(16).toString('hex'),
          goal: subject,
          result: { failure: 'it timed out' },
          subject,
        },
        (t) => t,
      )
    }
  }

  test('a change after which the failure rate does not rise is kept', async () => {
    await plantedRuns(RUN_WINDOW - MIN_FAILURES_AFTER, MIN_FAILURES_AFTER, 'kept case')
    reflection = { strategy: 'overlay-apply', catalogId: 'vary-or-stop' }
    const applied = await runWorker()
    assert.equal(applied.revisions.length, 1)
    const change = applied.revisions[0]!
    reflection = { strategy: 'no-action' }
    // As many failures after it as before (3 of 10): not a rise, however many passes look.
    await plantedRuns(RUN_WINDOW - MIN_FAILURES_AFTER, MIN_FAILURES_AFTER, 'kept case again')
    assert.deepEqual((await runWorker()).reverted, [])
    assert.deepEqual((await runWorker()).reverted, [])
    const kept = (await revisions()).find((r) => r.id === change)
    assert.equal(kept?.revertedBy, null)
    assert.equal(kept?.measured?.failuresBefore, MIN_FAILURES_AFTER)
    assert.equal(kept?.measured?.failuresAfter, MIN_FAILURES_AFTER)
    assert.equal(kept?.measured?.runsAfter, RUN_WINDOW)
    const [overlay] = await db
      .select()
      .from(learnedOverlays)
      .where(eq(learnedOverlays.catalogId, 'vary-or-stop'))
    assert.equal(overlay?.state, 'active')
  })

  const proposals = async (status: 'pending' | 'approved' | 'rejected' = 'pending') =>
    (await okJson(await api().autonomy.proposals.$get({ query: { status } }), 200)).proposals

  test('a proposal carrying a value that became a vault secret after it was held is refused at approval, set aside redacted', async () => {
    await okJson(await api().autonomy.policies.$patch({ json: { reviewByDefault: true } }), 200)
    const later = `sk-later-${randomBytes(12).toString('hex')}`
    for (let i = 0; i < 2; i++) {
      await recordSignal(
        db,
        {
          agentId: 'orchistrator',
          kind: 'task-failed',
          failureClass: 'policy-denied',
          traceId: randomBytes(16).toString('hex'),
          goal: `deploy with ${later}`,
          result: { failure: 'denied' },
          subject: 'secret at approval case',
        },
        (t) => t,
      )
    }
    reflection = { strategy: 'overlay-apply', catalogId: 'respect-denials' }
    const pass = await runWorker()
    assert.equal(pass.held.length, 1)
    const held = (await proposals()).find((p) => p.id === pass.held[0])!
    assert.ok(held.evidence.includes(later), 'held before the value was a secret')

    await okJson(await api().secrets.$post({ json: { name: 'LATER_KEY', value: later } }), 201)
    const revisionsBefore = (await db.select().from(evolutionRevisions)).length
    const refused = await errorJson(
      await api().autonomy.proposals[':id'].approve.$post({ param: { id: held.id } }),
      409,
    )
    assert.equal(refused.error.code, 'PROPOSAL_CARRIES_SECRET')
    assert.equal((await db.select().from(evolutionRevisions)).length, revisionsBefore)
    assert.equal(
      (
        await db
          .select()
          .from(learnedOverlays)
          .where(eq(learnedOverlays.catalogId, 'respect-denials'))
      ).length,
      0,
    )
    const [row] = await db
      .select()
      .from(evolutionProposals)
      .where(eq(evolutionProposals.id, held.id))
    assert.equal(row?.status, 'rejected', 'set aside')
    assert.ok(!JSON.stringify(row).includes(later), 'its stored text is redacted')
    const again = await errorJson(
      await api().autonomy.proposals[':id'].approve.$post({ param: { id: held.id } }),
      409,
    )
    assert.equal(again.error.code, 'PROPOSAL_DECIDED')
  })

  test('decided proposals are pruned after 30 days; recent ones and pending ones stay', async () => {
    // Two runs' signals: a held change needs evidence from two distinct runs.
    for (let run = 0; run < 2; run++) {
      await recordSignal(
        db,
        {
          agentId: 'orchistrator',
          kind: 'task-failed',
          failureClass: 'unhelpful-answer',
          traceId: randomBytes(16).toString('hex'),
          goal: 'prune pending case',
          result: { failure: 'no' },
          subject: 'prune pending case',
        },
        (t) => t,
      )
    }
    reflection = { strategy: 'overlay-apply', catalogId: 'confirm-the-request' }
    const pending = (await runWorker()).held[0]!
    const [old] = await proposals('rejected')
    assert.ok(old, 'the refused proposal above is decided')
    await db
      .update(evolutionProposals)
      .set({ decidedAt: new Date(Date.now() - 31 * 86_400_000) })
      .where(eq(evolutionProposals.id, old.id))
    reflection = { strategy: 'no-action' }
    await runWorker()
    assert.ok(!(await proposals('rejected')).some((p) => p.id === old.id), 'pruned')
    assert.ok(
      (await proposals()).some((p) => p.id === pending),
      'a pending one stays',
    )
    await okJson(
      await api().autonomy.proposals[':id'].reject.$post({ param: { id: pending } }),
      200,
    )
    await runWorker()
    assert.ok(
      (await proposals('rejected')).some((p) => p.id === pending),
      'a recent one stays',
    )
    await okJson(await api().autonomy.policies.$patch({ json: { reviewByDefault: false } }), 200)
  })

  test('a reflection that could pass the unattended cost cap is not made; one that fits is sent with its output bound', async () => {
    // $1 per million prompt tokens, $10 per million output tokens: a reflection's worst case is
    // at least 8,192 output tokens, $0.08.
    // Reflection asks the owner's default model.
    const runtime = await okJson(await api().settings['agent-runtime'].$get(), 200)
    await okJson(
      await api().observability.prices.$put({
        json: { model: runtime.effectiveDefaultModel, inputUsdPerMtok: 1, outputUsdPerMtok: 10 },
      }),
      200,
    )
    await okJson(
      await api().settings['agent-runtime'].$patch({ json: { budgetUnattendedCostUsd: 0.05 } }),
      200,
    )
    await plantedRuns(0, 1, 'cost cap case')
    reflection = { strategy: 'no-action' }
    const asked = reflectorRequests().length
    const refused = await runWorker()
    assert.equal(refused.claimed, 1)
    assert.equal(refused.failed, 1)
    assert.equal(reflectorRequests().length, asked, 'the model was not asked')
    const waiting = (await signals()).find((s) => s.evidence.includes('cost cap case'))
    assert.equal(waiting?.status, 'pending', 'it stays for later')
    assert.match(waiting?.lastError ?? '', /cost cap .* would pass it, so it was not made/)

    await okJson(
      await api().settings['agent-runtime'].$patch({ json: { budgetUnattendedCostUsd: 1 } }),
      200,
    )
    await db
      .update(evolutionSignals)
      .set({ nextAttemptAt: new Date() })
      .where(eq(evolutionSignals.id, waiting!.id))
    const made = await runWorker()
    assert.equal(made.processed, 1)
    const sent = reflectorRequests().slice(asked)
    assert.equal(sent.length, 1)
    assert.equal(sent[0]!.body?.max_tokens, OUTPUT_RESERVE_TOKENS, 'the bound sent')
  })
})
