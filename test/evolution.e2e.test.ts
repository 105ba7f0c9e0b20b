/**
 * Agent evolution (issue 39) on a real stack with the scripted gateway, through the API: a task
 * that fails becomes one signal with its real trace and redacted evidence, and the same failure
 * again counts on it; the worker's reflection (Mastra structured output, answered by the gateway)
 * applies a code-owned overlay that the next run's system prompt carries after the owner's
 * instructions; revert restores the exact previous prompt, once; a disabled policy changes
 * nothing; a skill the owner edited is never changed and its install can no longer be reverted;
 * a fact carrying a vault secret changes nothing; two workers claim disjoint batches. Under
 * review a change is held as a proposal (nothing changes) until the owner approves it (applied
 * once, carried by the next run) or rejects it (nothing is left); a stale one is refused.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { eq } from '../db/drizzle-orm.ts'
import type { Db } from '../db/index.ts'
import {
  agentSkills,
  evolutionRevisions,
  evolutionSignals,
  learnedOverlays,
  memories,
} from '../db/schema/index.ts'
import { claim } from '../compute-host/evolution/sql/claim.ts'
import { REFLECTOR_MARKER } from '../compute-host/evolution/reflection.ts'
import { LEARNED_HEADING, OVERLAY_CATALOG } from '../runtime/evolution/catalog.ts'
import { recordRun } from '../runtime/evolution/runs.ts'
import { recordSignal } from '../runtime/evolution/signals.ts'
import type { FailureClass } from '../db/evolution-enums.ts'
import { createSession } from './support/api-fixtures.ts'
import { markRoles, messagesOf, postChat, roleOf } from './support/chat.ts'
import { readUiStream } from './support/ui-stream.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'
import { until } from './support/until.ts'

const HOST_TOKEN = 'stack-host-token-0123456789'
const PLANTED = `sk-planted-${randomBytes(12).toString('hex')}`

/** What the scripted reflector answers next; `cite` fills in the batch's signal ids. */
type Script = {
  strategy: string
  catalogId?: string | null
  factKey?: string | null
  fact?: string | null
  confidence?: number
}

describe('agent evolution', () => {
  let stack: TestStack
  let db: Db
  let reflection: Script = { strategy: 'no-action' }
  const api = () => typedClient(stack.edge()).api

  const isReflector = (r: RecordedRequest) =>
    JSON.stringify(messagesOf(r)).includes(REFLECTOR_MARKER)
  const reflectorRequests = () => stack.gateway.requests.filter(isReflector)
  const systemOf = (r: RecordedRequest) =>
    messagesOf(r)
      .filter((m) => m.role === 'system')
      .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
      .join('\n')

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
    stack.gateway.respondWith(scripted)
  })
  after(() => stack.stop())

  /** The reflector answers `reflection` citing the signals it was shown; anything else answers. */
  function scripted(r: RecordedRequest) {
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
      }
    }
    // A task asked to loop calls tools until its budget stops it; anything else answers.
    const user = JSON.stringify(messagesOf(r).filter((m) => m.role === 'user'))
    if (user.includes('Map the repository') && (r.body?.tools ?? []).length > 0) {
      return { toolCalls: [{ name: 'repo-brief', arguments: { query: `q${Math.random()}` } }] }
    }
    return { text: 'done' }
  }

  async function runTask(prompt: string, budget?: { budgetToolCalls: number }) {
    const created = await okJson(
      await api().tasks.$post({
        json: { prompt, model: 'remote/a', workspaceId: 'wsp_default', ...(budget && { budget }) },
      }),
      201,
    )
    const read = async () =>
      (await okJson(await api().tasks[':id'].workflow.$get({ param: { id: created.id } }), 200))
        .task
    let task = await read()
    await until(
      async () => ((task = await read()), ['failed', 'completed'].includes(task.state)),
      20_000,
      `task ${created.id} to end`,
    )
    return task
  }
  /** The supervisor's system prompt in the newest request of a task asked `prompt`. */
  async function supervisorPromptOf(prompt: string): Promise<string> {
    const from = stack.gateway.requests.length
    const task = await runTask(prompt)
    assert.equal(task.state, 'completed')
    const request = stack.gateway.requests
      .slice(from)
      .find((r) => roleOf(r) === 'orchistrator' && !isReflector(r))
    assert.ok(request, 'the supervisor was asked')
    return systemOf(request)
  }
  const signals = async () =>
    (await okJson(await api().autonomy.signals.$get({ query: {} }), 200)).signals
  const runWorker = async () => okJson(await api().autonomy.evolution.run.$post(), 200)
  /** Signals recorded straight through the domain function, each from its own run. */
  async function planted(subject: string, traces = 2, failureClass: FailureClass = 'task-error') {
    for (let i = 0; i < traces; i++) {
      await recordSignal(
        db,
        {
          agentId: 'orchistrator',
          kind: 'task-failed',
          failureClass,
          traceId: randomBytes(16).toString('hex'),
          goal: subject,
          result: { failure: 'it did not work' },
          subject,
        },
        (t) => t,
      )
    }
  }

  let baseline = ''
  let overlayRevision = ''

  test('a failed task becomes one signal with its trace and redacted evidence; the same failure again counts on it', async () => {
    baseline = await supervisorPromptOf('Say hello')
    assert.ok(!baseline.includes(LEARNED_HEADING))
    const prompt = `Map the repository layout (the token is ${HOST_TOKEN})`
    const first = await runTask(prompt, { budgetToolCalls: 1 })
    assert.equal(first.state, 'failed')
    assert.equal(first.lastErrorClass, 'budget-exhausted')
    await until(async () => (await signals()).length === 1, 10_000, 'the signal')
    let list = await signals()
    assert.equal(list.length, 1)
    const [signal] = list
    assert.equal(signal!.kind, 'task-failed')
    assert.equal(signal!.failureClass, 'budget-exhausted')
    assert.equal(signal!.traceId, first.traceId)
    assert.match(signal!.evidence, /^Goal: Map the repository layout/)
    assert.match(signal!.evidence, /\nFailure: /)
    assert.ok(!signal!.evidence.includes(HOST_TOKEN), 'the host token was redacted')
    assert.match(signal!.evidence, /\[REDACTED\]/)

    const second = await runTask(prompt, { budgetToolCalls: 1 })
    assert.equal(second.state, 'failed')
    // The signal is recorded by an observer after the task ends: wait for it.
    await until(async () => (await signals())[0]?.occurrences === 2, 10_000, 'the occurrence')
    list = await signals()
    assert.equal(list.length, 1, 'one row for one failure pattern')
    assert.equal(list[0]!.occurrences, 2)
    assert.deepEqual(list[0]!.traceIds, [first.traceId, second.traceId])
  })

  test('the worker applies the chosen overlay, and the next run carries it after the owner’s instructions', async () => {
    reflection = { strategy: 'overlay-apply', catalogId: 'smaller-steps' }
    const asked = reflectorRequests().length
    const pass = await runWorker()
    assert.equal(pass.claimed, 1)
    assert.equal(pass.revisions.length, 1)
    overlayRevision = pass.revisions[0]!
    const reflector = reflectorRequests().slice(asked)
    assert.equal(reflector.length, 1, 'one reflection for the batch')
    assert.equal((reflector[0]!.body?.tools ?? []).length, 0, 'the reflector has no tools')
    assert.equal((await signals())[0]!.status, 'processed')

    const { revisions } = await okJson(await api().autonomy.revisions.$get(), 200)
    assert.equal(revisions.length, 1)
    assert.equal(revisions[0]!.op, 'create')
    assert.equal(revisions[0]!.targetKind, 'overlay')
    assert.equal(revisions[0]!.traceIds.length, 2)
    assert.equal(revisions[0]!.before, null)

    const system = await supervisorPromptOf('Say hello')
    const text = OVERLAY_CATALOG.find((o) => o.id === 'smaller-steps')!.text
    const owner = system.indexOf('ROLE:orchistrator')
    const heading = system.indexOf(LEARNED_HEADING)
    assert.ok(owner >= 0 && heading > owner, 'the overlay follows the owner’s instructions')
    // The owner's part of the prompt is untouched: without the learned block it is the baseline.
    const block = `\n\n${LEARNED_HEADING}\n- [rev:${overlayRevision}] ${text}`
    assert.ok(system.includes(block))
    assert.equal(system.replace(block, ''), baseline)
  })

  test('revert restores the exact previous prompt, once', async () => {
    const reverted = await okJson(
      await api().autonomy.revisions[':id'].revert.$post({ param: { id: overlayRevision } }),
      201,
    )
    assert.equal(reverted.op, 'revert')
    assert.equal(reverted.revertsRevisionId, overlayRevision)
    assert.equal((await db.select().from(learnedOverlays)).length, 0)
    assert.equal(await supervisorPromptOf('Say hello'), baseline)
    const again = await errorJson(
      await api().autonomy.revisions[':id'].revert.$post({ param: { id: overlayRevision } }),
      409,
    )
    assert.equal(again.error.code, 'REVERT_ALREADY_DONE')
    // Revisions are append-only in the database too.
    await assert.rejects(
      db.delete(evolutionRevisions).where(eq(evolutionRevisions.id, overlayRevision)),
      (error: Error & { cause?: Error }) => /append-only/.test(String(error.cause?.message)),
    )
  })

  const proposals = async () =>
    (await okJson(await api().autonomy.proposals.$get({ query: {} }), 200)).proposals
  /** Plants two runs of `subject`, lets the worker hold `catalogId` for review; its proposal. */
  async function heldProposal(subject: string, catalogId: string, failureClass: FailureClass) {
    await planted(subject, 2, failureClass)
    reflection = { strategy: 'overlay-apply', catalogId }
    const pass = await runWorker()
    assert.deepEqual(pass.revisions, [], 'under review the worker changes nothing')
    assert.equal(pass.held.length, 1)
    const proposal = (await proposals()).find((p) => p.id === pass.held[0])
    assert.ok(proposal, 'the held proposal is listed')
    return proposal
  }

  test('under review a change is held until the owner approves it, then applies once and the next run carries it', async () => {
    const policies = await okJson(
      await api().autonomy.policies.$patch({ json: { reviewByDefault: true } }),
      200,
    )
    assert.equal(policies.agents.find((a) => a.agentId === 'orchistrator')?.reviews, true)
    const revisionsBefore = (await db.select().from(evolutionRevisions)).length
    const text = OVERLAY_CATALOG.find((o) => o.id === 'vary-or-stop')!.text
    const proposal = await heldProposal('review approve case', 'vary-or-stop', 'repeated-call')
    assert.equal(proposal.status, 'pending')
    assert.equal(proposal.strategy, 'overlay-apply')
    assert.equal(proposal.targetKey, 'orchistrator/vary-or-stop')
    assert.equal(proposal.before, null)
    assert.equal(proposal.after?.text, text)
    assert.match(proposal.evidence, /Goal: review approve case/)
    assert.equal(proposal.traceIds.length, 2)
    assert.equal((await db.select().from(learnedOverlays)).length, 0)
    assert.equal((await db.select().from(evolutionRevisions)).length, revisionsBefore)
    assert.equal(await supervisorPromptOf('Say hello'), baseline, 'held: the prompt is unchanged')

    const approved = await okJson(
      await api().autonomy.proposals[':id'].approve.$post({ param: { id: proposal.id } }),
      200,
    )
    assert.equal(approved.status, 'approved')
    assert.ok(approved.revisionId)
    const again = await okJson(
      await api().autonomy.proposals[':id'].approve.$post({ param: { id: proposal.id } }),
      200,
    )
    assert.equal(again.revisionId, approved.revisionId, 'a second approval applies nothing')
    assert.equal((await db.select().from(evolutionRevisions)).length, revisionsBefore + 1)
    assert.ok(!(await proposals()).some((p) => p.id === proposal.id), 'no longer pending')
    const system = await supervisorPromptOf('Say hello')
    assert.ok(system.includes(`\n\n${LEARNED_HEADING}\n- [rev:${approved.revisionId}] ${text}`))
    const rejectAfter = await errorJson(
      await api().autonomy.proposals[':id'].reject.$post({ param: { id: proposal.id } }),
      409,
    )
    assert.equal(rejectAfter.error.code, 'PROPOSAL_DECIDED')
    // Back to the baseline for the cases below.
    await okJson(
      await api().autonomy.revisions[':id'].revert.$post({ param: { id: approved.revisionId! } }),
      201,
    )
  })

  test('a rejected proposal leaves nothing, and approving a stale one is refused with nothing changed', async () => {
    const revisionsBefore = (await db.select().from(evolutionRevisions)).length
    const rejectedOne = await heldProposal('review reject case', 'respect-denials', 'policy-denied')
    const rejected = await okJson(
      await api().autonomy.proposals[':id'].reject.$post({ param: { id: rejectedOne.id } }),
      200,
    )
    assert.equal(rejected.status, 'rejected')
    assert.equal(
      (
        await okJson(
          await api().autonomy.proposals[':id'].reject.$post({ param: { id: rejectedOne.id } }),
          200,
        )
      ).status,
      'rejected',
      'rejecting twice is the same',
    )
    const late = await errorJson(
      await api().autonomy.proposals[':id'].approve.$post({ param: { id: rejectedOne.id } }),
      409,
    )
    assert.equal(late.error.code, 'PROPOSAL_DECIDED')

    const stale = await heldProposal('review stale case', 'smaller-steps', 'timeout')
    assert.equal(stale.before, null)
    // The target changes after the proposal read it (outside evolution).
    await db.insert(learnedOverlays).values({
      id: 'ovl_stale-case',
      agentId: 'orchistrator',
      catalogId: 'smaller-steps',
      text: 'changed since',
      state: 'active',
      headRevisionId: 'evr_outside',
    })
    try {
      const refused = await errorJson(
        await api().autonomy.proposals[':id'].approve.$post({ param: { id: stale.id } }),
        409,
      )
      assert.equal(refused.error.code, 'PROPOSAL_STALE')
      assert.match(refused.error.message, /orchistrator\/smaller-steps changed since/)
      const [overlay] = await db.select().from(learnedOverlays)
      assert.equal(overlay?.text, 'changed since', 'nothing was changed')
      assert.equal((await proposals()).find((p) => p.id === stale.id)?.status, 'pending')
    } finally {
      await db.delete(learnedOverlays).where(eq(learnedOverlays.id, 'ovl_stale-case'))
    }
    await okJson(
      await api().autonomy.proposals[':id'].reject.$post({ param: { id: stale.id } }),
      200,
    )
    assert.equal((await db.select().from(evolutionRevisions)).length, revisionsBefore)
    assert.equal((await db.select().from(learnedOverlays)).length, 0)
    await okJson(await api().autonomy.policies.$patch({ json: { reviewByDefault: false } }), 200)
  })

  test('a disabled agent policy wins: its signals are ignored, no model call, nothing changed', async () => {
    await okJson(
      await api().autonomy.policies[':agentId'].$patch({
        param: { agentId: 'orchistrator' },
        json: { enabled: false },
      }),
      200,
    )
    try {
      await planted('disabled policy case')
      reflection = { strategy: 'overlay-apply', catalogId: 'vary-or-stop' }
      const asked = reflectorRequests().length
      const revisionsBefore = (await db.select().from(evolutionRevisions)).length
      const pass = await runWorker()
      assert.equal(pass.ignored, 1)
      assert.deepEqual(pass.revisions, [])
      assert.equal(reflectorRequests().length, asked, 'the model was not asked')
      assert.equal((await db.select().from(evolutionRevisions)).length, revisionsBefore)
      assert.equal((await db.select().from(learnedOverlays)).length, 0)
      const ignored = (await signals()).find((s) => s.evidence.includes('disabled policy case'))
      assert.equal(ignored?.status, 'ignored')
    } finally {
      await api().autonomy.policies[':agentId'].$patch({
        param: { agentId: 'orchistrator' },
        json: { enabled: true },
      })
    }
  })

  test('a skill the owner edited is never changed again, and its install can no longer be reverted', async () => {
    await planted('skill install case')
    reflection = { strategy: 'skill-install', catalogId: 'verify-changes' }
    const installed = await runWorker()
    assert.equal(installed.revisions.length, 1)
    const [skill] = await db
      .select()
      .from(agentSkills)
      .where(eq(agentSkills.name, 'verify-changes'))
    assert.equal(skill?.evolutionManaged, true)

    const edited = 'My own way to verify.'
    await okJson(
      await api().agents[':id'].skills[':skillId'].$patch({
        param: { id: 'orchistrator', skillId: skill!.id },
        json: { instructions: edited },
      }),
      200,
    )
    const stale = await errorJson(
      await api().autonomy.revisions[':id'].revert.$post({
        param: { id: installed.revisions[0]! },
      }),
      409,
    )
    assert.equal(stale.error.code, 'REVERT_STALE')

    await planted('skill retire case')
    reflection = { strategy: 'skill-retire', catalogId: 'verify-changes' }
    const retired = await runWorker()
    assert.deepEqual(retired.revisions, [])
    const [after] = await db.select().from(agentSkills).where(eq(agentSkills.id, skill!.id))
    assert.equal(after?.instructions, edited)
    assert.equal(after?.enabled, true)
    assert.equal(after?.evolutionManaged, false)
    const outcome = (await signals()).find((s) => s.evidence.includes('skill retire case'))
    assert.match(outcome?.outcome ?? '', /^refused: .*owner/)
  })

  test('a fact carrying a vault secret changes nothing; a clean fact is kept with its revision', async () => {
    await okJson(await api().secrets.$post({ json: { name: 'DEPLOY_KEY', value: PLANTED } }), 201)
    await planted('secret fact case', 1)
    reflection = {
      strategy: 'retain-fact',
      factKey: 'deploy-target',
      fact: `deploy with ${PLANTED}`,
    }
    const refused = await runWorker()
    assert.deepEqual(refused.revisions, [])
    const facts = await db.select().from(memories).where(eq(memories.owner, 'evolution'))
    assert.equal(facts.length, 0)
    assert.ok(!JSON.stringify(await db.select().from(evolutionRevisions)).includes(PLANTED))

    await planted('clean fact case', 1)
    reflection = { strategy: 'retain-fact', factKey: 'package-manager', fact: 'The repo uses npm.' }
    const kept = await runWorker()
    assert.equal(kept.revisions.length, 1)
    const [fact] = await db.select().from(memories).where(eq(memories.owner, 'evolution'))
    assert.equal(fact?.key, 'evolution.orchistrator.package-manager')
    assert.equal(fact?.content, 'The repo uses npm.')
  })

  test('a change after which the same failures rise is reverted by evolution itself, saying why', async () => {
    // Ten runs before the change, two of them failed; ten after, four failed.
    for (let i = 0; i < 8; i++)
      await recordRun(db, randomBytes(16).toString('hex'), ['orchistrator'])
    await planted('regression case', 2, 'repeated-call')
    reflection = { strategy: 'overlay-apply', catalogId: 'vary-or-stop' }
    const applied = await runWorker()
    assert.equal(applied.revisions.length, 1)
    const change = applied.revisions[0]!
    for (let i = 0; i < 6; i++)
      await recordRun(db, randomBytes(16).toString('hex'), ['orchistrator'])
    await planted('regression again', 4, 'repeated-call')
    reflection = { strategy: 'no-action' }
    const measured = await runWorker()
    assert.equal(measured.reverted.length, 1)
    const { revisions } = await okJson(await api().autonomy.revisions.$get(), 200)
    const compensating = revisions.find((r) => r.id === measured.reverted[0])
    assert.equal(compensating?.revertsRevisionId, change)
    assert.match(
      compensating?.rationale ?? '',
      /failure rate rose .*4 of the 10 runs after it, 40 %, against 2 of the 10 runs before, 20 %/,
    )
    assert.equal(revisions.find((r) => r.id === change)?.revertedBy, compensating?.id)
    assert.equal((await db.select().from(learnedOverlays)).length, 0)
  })

  test('a claim whose worker died is recovered and processed; nothing was half applied', async () => {
    await planted('abandoned case', 1)
    const [taken] = await claim(db, 'a-worker-that-died', 20, 0)
    assert.ok(taken)
    reflection = { strategy: 'no-action' }
    const pass = await runWorker()
    assert.ok(pass.recovered >= 1)
    const signal = (await signals()).find((s) => s.evidence.includes('abandoned case'))
    assert.equal(signal?.status, 'processed')
    assert.equal(signal?.attempts, 2, 'the dead worker’s attempt counts')
  })

  test('two workers claim disjoint batches', async () => {
    for (let i = 0; i < 6; i++) await planted(`race case ${'abcdef'[i]}`, 1)
    const [a, b] = await Promise.all([
      claim(db, 'worker-a', 3, 60_000),
      claim(db, 'worker-b', 3, 60_000),
    ])
    const ids = [...a, ...b].map((s) => s.id)
    assert.equal(ids.length, 6)
    assert.equal(new Set(ids).size, 6)
  })

  test('a chat turn that corrects the answer before it becomes a signal about that request', async () => {
    const url = await stack.listen()
    const sessionId = await createSession(stack.edge(), 'wsp_default')
    const say = async (text: string) =>
      readUiStream(await postChat(url, { sessionId, model: 'remote/a', text }))
    await say('Which package manager does the repository use?')
    await say('Thanks, and which test runner?')
    assert.ok(!(await signals()).some((s) => s.kind === 'user-correction'), 'a follow-up is none')
    await say('No, that is not what I asked: I meant the lockfile')
    let correction: Awaited<ReturnType<typeof signals>>[number] | undefined
    await until(
      async () =>
        (correction = (await signals()).find((s) => s.kind === 'user-correction')) !== undefined,
      10_000,
      'the correction signal',
    )
    assert.equal(correction!.failureClass, 'misunderstood-request')
    assert.equal(correction!.sessionId, sessionId)
    assert.match(
      correction!.evidence,
      /^Goal: Thanks, and which test runner\?\nOutcome: the user corrected the answer: No, that is not what I asked/,
    )
  })

  test('a dry run shows what a pass would change, and changes nothing', async () => {
    await planted('dry run case', 2, 'unhelpful-answer')
    reflection = { strategy: 'overlay-apply', catalogId: 'confirm-the-request' }
    const revisionsBefore = (await db.select().from(evolutionRevisions)).length
    const { proposals } = await okJson(await api().autonomy.evolution['dry-run'].$post(), 200)
    const proposal = proposals.find((p) => p.agentId === 'orchistrator')
    assert.equal(proposal?.decision, 'change')
    assert.equal(proposal?.targetKey, 'orchistrator/confirm-the-request')
    assert.equal(proposal?.before, null)
    assert.match(String(proposal?.after?.text), /restate it in one sentence/)
    assert.equal((await db.select().from(evolutionRevisions)).length, revisionsBefore)
    assert.equal((await db.select().from(learnedOverlays)).length, 0)
    const waiting = (await signals()).find((s) => s.evidence.includes('dry run case'))
    assert.equal(waiting?.status, 'pending', 'not claimed')
  })

  test('a dry run whose reflection answers outside its schema says so for that agent, with 200', async () => {
    await planted('dry run garbled case', 2, 'unhelpful-answer')
    stack.gateway.respondWith((r) => (isReflector(r) ? { text: 'ok' } : scripted(r)))
    try {
      const { proposals } = await okJson(await api().autonomy.evolution['dry-run'].$post(), 200)
      const proposal = proposals.find((p) => p.agentId === 'orchistrator')
      assert.equal(proposal?.decision, 'failed')
      assert.match(proposal?.reason ?? '', /^reflection failed: /)
    } finally {
      stack.gateway.respondWith(scripted)
    }
    const waiting = (await signals()).find((s) => s.evidence.includes('dry run garbled case'))
    assert.equal(waiting?.status, 'pending', 'left for a pass')
  })

  test('an agent gets at most five learned changes a day', async () => {
    const changes = (await db.select().from(evolutionRevisions)).filter(
      (r) => r.agentId === 'orchistrator' && r.op !== 'revert',
    )
    assert.equal(changes.length, 5, 'five so far, one of them approved from the review queue')
    await planted('sixth change case', 2, 'policy-denied')
    reflection = { strategy: 'overlay-apply', catalogId: 'respect-denials' }
    assert.deepEqual((await runWorker()).revisions, [])
    const held = (await signals()).find((s) => s.evidence.includes('sixth change case'))
    assert.match(held?.outcome ?? '', /^no-action: 5 changes in the last 24 h/)
  })

  test('the owner ignores a waiting signal and sends a dead one back', async () => {
    await planted('ignore case', 1)
    const find = async (text: string) => (await signals()).find((s) => s.evidence.includes(text))
    const waiting = (await find('ignore case'))!
    const ignored = await okJson(
      await api().autonomy.signals[':id'].ignore.$post({ param: { id: waiting.id } }),
      200,
    )
    assert.equal(ignored.status, 'ignored')
    const again = await errorJson(
      await api().autonomy.signals[':id'].retry.$post({ param: { id: waiting.id } }),
      409,
    )
    assert.equal(again.error.code, 'EVOLUTION_SIGNAL_STATE')

    await planted('dead case', 1)
    const dead = (await find('dead case'))!
    await db
      .update(evolutionSignals)
      .set({ status: 'dead', attempts: 5, lastError: 'gave up' })
      .where(eq(evolutionSignals.id, dead.id))
    const back = await okJson(
      await api().autonomy.signals[':id'].retry.$post({ param: { id: dead.id } }),
      200,
    )
    assert.equal(back.status, 'pending')
    assert.equal(back.attempts, 0)
  })

  test('settled signals are pruned after 30 days; their revisions keep the evidence', async () => {
    const settled = (await signals()).find((s) => s.status === 'processed')!
    await db
      .update(evolutionSignals)
      .set({ updatedAt: new Date(Date.now() - 31 * 86_400_000) })
      .where(eq(evolutionSignals.id, settled.id))
    reflection = { strategy: 'no-action' }
    await runWorker()
    assert.ok(!(await signals()).some((s) => s.id === settled.id))
  })

  test('a worker stopped mid-reflection changes nothing and gives its signals back', async () => {
    await planted('stopped mid-reflection case', 2, 'timeout')
    reflection = { strategy: 'overlay-apply', catalogId: 'smaller-steps' }
    const asked = reflectorRequests().length
    const revisionsBefore = (await db.select().from(evolutionRevisions)).length
    const slow = stack.gateway.requests.length
    stack.gateway.respondWith((r) =>
      isReflector(r) ? { text: '{', delayMs: 10_000 } : { text: 'done' },
    )
    const worker = stack.host.resources.evolution.worker
    const pass = worker.runNow()
    await until(() => reflectorRequests().length > asked, 10_000, 'the reflection to start')
    await worker.stop()
    const settled = await pass
    assert.ok(slow < stack.gateway.requests.length)
    assert.equal(settled.failed, 1 * settled.claimed)
    assert.deepEqual(settled.revisions, [])
    assert.equal((await db.select().from(evolutionRevisions)).length, revisionsBefore)
    const back = (await signals()).find((s) => s.evidence.includes('stopped mid-reflection case'))
    assert.equal(back?.status, 'pending')
    assert.match(back?.lastError ?? '', /abort/i)
  })
})
