/**
 * Evolution review on a channel: the owner names a Telegram conversation (evolution's
 * `reviewBindingId`), and each proposal the worker holds is asked there with Approve and Reject
 * buttons. The owner's press approves or rejects the proposal through the web's own path (the
 * revision is written once); a stranger's press is refused and changes nothing; a proposal
 * decided on the web first makes a later press "already decided"; the approval's web answer
 * route refuses such a question (it is answered by deciding the proposal). Real PostgreSQL, the
 * scripted gateway as the reflector, the loopback fake of the Telegram Bot API.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { Db } from '../db/index.ts'
import { evolutionRevisions } from '../db/schema/index.ts'
import { REFLECTOR_MARKER } from '../compute-host/evolution/reflection.ts'
import { recordSignal } from '../runtime/evolution/signals.ts'
import type { FailureClass } from '../db/evolution-enums.ts'
import { markRoles, messagesOf } from './support/chat.ts'
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { addTelegramChannel } from './support/telegram-channel.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'
import { waitFor } from './support/until.ts'

const API_KEY = 'evolution-review-api-key-0123456789'
const BOT_TOKEN = '777111:telegram-bot-token-evolution-review'
const TG_SECRET = 'telegram-webhook-secret-evolution-987'
const OWNER = 42
const STRANGER = 99

describe('evolution review on a channel', () => {
  let stack: TestStack
  let db: Db
  let url: string
  let api: Client['api']
  let telegram: FakeTelegram
  let telegramId: string
  let catalogId = 'vary-or-stop'
  let update = 9_000

  before(async () => {
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    db = stack.host.resources.databases.application.db
    url = await stack.listen({ apiKey: API_KEY })
    api = typedClient(url, { apiKey: API_KEY }).api
    await markRoles(stack, ['orchistrator'])
    await okJson(
      await api.settings.autonomy.$patch({
        json: { evolutionEnabled: true, skillCreationEnabled: true, automaticFactRetention: true },
      }),
      200,
    )
    // The reflector applies `catalogId` citing what it was shown; anything else just answers.
    stack.gateway.respondWith((r) => {
      const said = JSON.stringify(messagesOf(r))
      if (!said.includes(REFLECTOR_MARKER)) return { text: 'noted' }
      const cited = [...said.matchAll(/Signal (evs_[0-9A-Z]+)/g)].map((m) => m[1])
      return {
        text: JSON.stringify({
          strategy: 'overlay-apply',
          catalogId,
          factKey: null,
          fact: null,
          confidence: 0.9,
          evidenceSignalIds: cited,
          rationale: 'the same call kept repeating',
        }),
      }
    })
    telegram = await startFakeTelegram({ token: BOT_TOKEN })
    telegramId = (
      await addTelegramChannel(api, {
        telegramUrl: telegram.url,
        name: 'Phone',
        model: 'remote/a',
        allowedSenders: [String(OWNER)],
        botToken: BOT_TOKEN,
        webhookSecret: TG_SECRET,
      })
    ).id
    // The owner's first message makes the conversation (binding) the review is asked on.
    const sent = await post({
      message: {
        message_id: 1,
        from: { id: OWNER, is_bot: false },
        chat: { id: OWNER, type: 'private' },
        text: 'hello',
      },
    })
    assert.equal(sent.status, 202)
    const binding = await waitFor(
      async () =>
        (await okJson(await api.channels[':id'].bindings.$get({ param: { id: telegramId } }), 200))
          .bindings[0],
      10_000,
      'the binding',
    )
    const policies = await okJson(
      await api.autonomy.policies.$patch({
        json: { reviewByDefault: true, reviewBindingId: binding.id },
      }),
      200,
    )
    assert.equal(policies.reviewBindingId, binding.id)
  })
  after(async () => {
    stack?.gateway.respondWith(undefined)
    await stack?.stop()
    await telegram?.close()
  })

  function post(body: object) {
    return fetch(`${url}/api/channels/${telegramId}/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG_SECRET },
      body: JSON.stringify({ update_id: ++update, ...body }),
    })
  }
  const press = (from: number, data: string) =>
    post({
      callback_query: {
        id: `cbq-${update + 1}`,
        from: { id: from },
        data,
        message: { message_id: 1, chat: { id: OWNER } },
      },
    })
  const acks = () => telegram.callsOf('answerCallbackQuery')
  /** Presses `data` as `from`; the acknowledgement's text. */
  async function pressed(from: number, data: string): Promise<string> {
    const before = acks().length
    assert.equal((await press(from, data)).status, 202)
    const ack = await waitFor(() => acks()[before], 10_000, 'the press’s acknowledgement')
    return String(ack.params.text)
  }
  const revisions = async () => (await db.select().from(evolutionRevisions)).length
  const proposal = async (id: string) =>
    (
      await okJson(await api.autonomy.proposals.$get({ query: { status: 'approved' } }), 200)
    ).proposals.find((p) => p.id === id)

  /** Plants two failures, lets the worker hold `catalog`; the proposal id and its question. */
  async function held(subject: string, catalog: string, failureClass: FailureClass) {
    for (let i = 0; i < 2; i++) {
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
    catalogId = catalog
    const asked = telegram.callsOf('sendMessage').length
    const pass = await okJson(await api.autonomy.evolution.run.$post(), 200)
    assert.deepEqual(pass.revisions, [], 'under review nothing is applied')
    assert.equal(pass.held.length, 1)
    const question = await waitFor(
      () =>
        telegram
          .callsOf('sendMessage')
          .slice(asked)
          .find((c) => c.params.reply_markup),
      10_000,
      'the question on Telegram',
    )
    const buttons = question.params.reply_markup.inline_keyboard[0] as {
      text: string
      callback_data: string
    }[]
    assert.deepEqual(
      buttons.map((b) => b.text),
      ['Approve', 'Reject'],
    )
    const [approve, reject] = buttons.map((b) => b.callback_data)
    const approvalId = /^appr:(apr_\w+):a$/.exec(approve!)?.[1]
    assert.ok(approvalId, `unexpected button data ${approve}`)
    assert.equal(reject, `appr:${approvalId}:d`)
    return {
      proposalId: pass.held[0]!,
      approvalId,
      text: String(question.params.text),
      approve: approve!,
      reject: reject!,
    }
  }

  test('the owner approves from Telegram: applied once; a stranger’s press changes nothing', async () => {
    const before = await revisions()
    const q = await held('channel review approve', 'vary-or-stop', 'repeated-call')
    assert.match(q.text, /Evolution proposal for /)
    assert.match(q.text, /overlay-apply on overlay orchistrator\/vary-or-stop/)
    assert.match(q.text, /the same call kept repeating/)

    // A stranger presses Approve: refused, and the proposal still waits.
    assert.match(await pressed(STRANGER, q.approve), /Only the owner/)
    assert.equal(await revisions(), before)
    const waiting = (
      await okJson(await api.autonomy.proposals.$get({ query: {} }), 200)
    ).proposals.find((p) => p.id === q.proposalId)
    assert.equal(waiting?.status, 'pending')

    // The web's approval answer route does not decide a proposal's question.
    const refused = await errorJson(
      await api.approvals[':id'].$post({
        param: { id: q.approvalId },
        json: { decision: 'allow' },
      }),
      409,
    )
    assert.equal(refused.error.code, 'ANSWERED_WITH_PROPOSAL')

    // The owner approves: the revision exists, once.
    assert.match(await pressed(OWNER, q.approve), /Done: approved \(revision evr_/)
    assert.equal(await revisions(), before + 1)
    const approved = await proposal(q.proposalId)
    assert.ok(approved?.revisionId)
    const approval = await okJson(
      await api.approvals[':id'].$get({ param: { id: q.approvalId } }),
      200,
    )
    assert.equal(approval.status, 'allowed')
    assert.equal(approval.decidedBy, `channel:${telegramId}:${OWNER}`)
    assert.equal(approval.proposalId, q.proposalId)

    // Pressed again (Approve, then Reject): already decided, nothing more applied.
    assert.match(await pressed(OWNER, q.approve), /Already decided: approved/)
    assert.match(await pressed(OWNER, q.reject), /Already decided: approved/)
    assert.equal(await revisions(), before + 1)
  })

  test('approved on the web first: the later press says already decided', async () => {
    const before = await revisions()
    const q = await held('channel review web first', 'respect-denials', 'policy-denied')
    const approved = await okJson(
      await api.autonomy.proposals[':id'].approve.$post({ param: { id: q.proposalId } }),
      200,
    )
    assert.equal(approved.status, 'approved')
    const approval = await okJson(
      await api.approvals[':id'].$get({ param: { id: q.approvalId } }),
      200,
    )
    assert.equal(approval.status, 'allowed')
    assert.equal(approval.decidedBy, 'owner-web')
    assert.match(await pressed(OWNER, q.reject), /Already decided: approved/)
    assert.equal(await revisions(), before + 1)
  })

  test('the owner rejects from Telegram: nothing is written', async () => {
    const before = await revisions()
    const q = await held('channel review reject', 'smaller-steps', 'timeout')
    assert.match(await pressed(OWNER, q.reject), /Done: rejected/)
    const rejected = (
      await okJson(await api.autonomy.proposals.$get({ query: { status: 'rejected' } }), 200)
    ).proposals.find((p) => p.id === q.proposalId)
    assert.equal(rejected?.status, 'rejected')
    assert.equal(await revisions(), before)
    assert.match(await pressed(OWNER, q.approve), /Already decided: rejected/)
    assert.equal(await revisions(), before)
  })
})
