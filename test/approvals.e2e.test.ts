/**
 * Approvals end to end (X6): a PreToolUse hook answers `ask`, and the tool call waits for the
 * owner. On the web (GET /api/approvals, POST /api/approvals/:id, behind the API key) an allow
 * lets the call run and a deny refuses it as a hook's deny would, the model told why; no answer
 * within the hook's bound expires the approval, which denies. On Telegram (the loopback fake of
 * the Bot API) the question arrives with two buttons: a stranger's press is refused and changes
 * nothing, the owner's is honoured once, and a second press is told the decision that stands.
 * Real PostgreSQL, the scripted gateway, a real HTTP hook on loopback.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { createSession } from './support/api-fixtures.ts'
import { markRoles, roleOf, toolResultsOf, userMessage } from './support/chat.ts'
import { slackSignature, startFakeSlack, type FakeSlack } from './support/fake-slack.ts'
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts'
import { closerOf, listenOnLoopback } from './support/loopback-server.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient, type Client } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'
import { waitFor } from './support/until.ts'
import { addTelegramChannel } from './support/telegram-channel.ts'

const ROUTE = 'remote/a'
const API_KEY = 'approvals-e2e-api-key-0123456789'
const BOT_TOKEN = '654321:telegram-bot-token-abcdefghijklmnop'
const TG_SECRET = 'telegram-webhook-secret-token-4567'
const SLACK_TOKEN = 'xoxb-approvals-bot-token-0123456789'
const SLACK_SIGNING = 'slack-approvals-signing-secret-0123'
const OWNER = 42
const STRANGER = 99

describe('approvals', () => {
  let stack: TestStack
  let url: string
  let api: Client['api']
  let telegram: FakeTelegram
  let telegramId: string
  let slack: FakeSlack
  let slackId: string
  let closeHook: () => Promise<void>
  /** What the ask hook answers; each test sets its bound. */
  let askTimeoutSeconds = 30

  before(async () => {
    stack = await startTestStack({
      models: [{ id: ROUTE }],
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    url = await stack.listen({ apiKey: API_KEY })
    api = typedClient(url, { apiKey: API_KEY }).api
    await markRoles(stack, ['orchistrator', 'implementer'])
    telegram = await startFakeTelegram({ token: BOT_TOKEN })
    slack = await startFakeSlack({ token: SLACK_TOKEN })
    // The supervisor delegates once (the call the hook asks about), then says what came back.
    stack.gateway.respondWith((request) => {
      const results = toolResultsOf(request)
      if (roleOf(request) === 'implementer') return { text: 'IMPLEMENTED-MARK' }
      if (results.length === 0) {
        return { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'change it' } }] }
      }
      return { text: `supervisor saw: ${JSON.stringify(results.at(-1)?.content).slice(0, 300)}` }
    })
    // The owner's PreToolUse hook: an HTTP hook on loopback that always asks.
    const hookServer = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            decision: 'ask',
            reason: 'delegations need a yes',
            timeoutSeconds: askTimeoutSeconds,
          }),
        )
      })
    })
    closeHook = closerOf(hookServer)
    const port = await listenOnLoopback(hookServer)
    await okJson(
      await api.hooks.$post({
        json: {
          name: 'ask the owner',
          event: 'PreToolUse',
          kind: 'http',
          matcher: 'agent-implementer',
          url: `http://127.0.0.1:${port}/ask`,
          allowLoopback: true,
        },
      }),
      201,
    )
    const tg = await addTelegramChannel(api, {
      telegramUrl: telegram.url,
      name: 'Phone',
      model: ROUTE,
      allowedSenders: [String(OWNER)],
      botToken: BOT_TOKEN,
      webhookSecret: TG_SECRET,
    })
    telegramId = tg.id
    const sl = await okJson(
      await api.channels.$post({
        json: {
          kind: 'slack',
          name: 'Team',
          model: ROUTE,
          allowedSenders: ['U0OWNER'],
          settings: { apiBaseUrl: slack.url, allowLoopback: true },
          secrets: { botToken: SLACK_TOKEN, signingSecret: SLACK_SIGNING },
        },
      }),
      201,
    )
    slackId = sl.id
  })
  after(async () => {
    stack?.gateway.respondWith(undefined)
    await stack?.stop()
    await telegram?.close()
    await slack?.close()
    await closeHook?.()
  })

  const chat = (sessionId: string, text: string) =>
    fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-popagent-key': API_KEY },
      body: JSON.stringify({
        sessionId,
        workspaceId: 'wsp_default',
        model: ROUTE,
        message: userMessage(text),
      }),
    }).then((res) => {
      assert.equal(res.status, 200)
      return readUiStream(res)
    })
  const pending = async () =>
    (await okJson(await api.approvals.$get({ query: { status: 'pending' } }), 200)).approvals
  const approvalOf = async (sessionId: string) =>
    waitFor(
      async () => (await pending()).find((a) => a.sessionId === sessionId),
      15_000,
      'an approval',
    )
  const answer = async (id: string, decision: 'allow' | 'deny') =>
    okJson(await api.approvals[':id'].$post({ param: { id }, json: { decision } }), 200)
  const implementerAsked = (since: number) =>
    stack.gateway.requests.slice(since).some((r) => roleOf(r) === 'implementer')
  /** The tool result the supervisor got for the delegation, in its last request. */
  const delegationResult = (since: number) => {
    const last = stack.gateway.requests
      .slice(since)
      .filter((r) => roleOf(r) === 'orchistrator')
      .at(-1)!
    return JSON.stringify(toolResultsOf(last))
  }

  test('the approvals routes are the owner’s: no key, 401', async () => {
    const res = await fetch(`${url}/api/approvals?status=pending`)
    assert.equal(res.status, 401)
    const post = await fetch(`${url}/api/approvals/apr_00000000000000000000000000`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'allow' }),
    })
    assert.equal(post.status, 401)
    // With the key: an approval that does not exist is a 404, a malformed id a 400.
    const missing = await api.approvals[':id'].$post({
      param: { id: 'apr_00000000000000000000000000' },
      json: { decision: 'allow' },
    })
    assert.equal(missing.status, 404)
    const malformed = await api.approvals[':id'].$get({ param: { id: 'tsk_nope' } })
    assert.equal(malformed.status, 400)
  })

  test('an ask makes the call wait; the owner’s web allow lets it run, once', async () => {
    askTimeoutSeconds = 30
    const sessionId = await createSession(stack.edge())
    const since = stack.gateway.requests.length
    const turn = chat(sessionId, 'please delegate')
    const approval = await approvalOf(sessionId)
    assert.equal(approval.toolName, 'agent-implementer')
    assert.match(approval.summary, /change it/)
    assert.equal(approval.reason, 'delegations need a yes')
    // Waiting: the delegated agent has not been asked anything.
    await new Promise((r) => setTimeout(r, 700))
    assert.equal(implementerAsked(since), false, 'the call ran before the owner answered')
    const first = await answer(approval.id, 'allow')
    assert.equal(first.changed, true)
    assert.equal(first.approval.status, 'allowed')
    assert.equal(first.approval.decidedBy, 'owner-web')
    // A second answer changes nothing and is told the decision that stands.
    const second = await answer(approval.id, 'deny')
    assert.equal(second.changed, false)
    assert.equal(second.approval.status, 'allowed')
    await turn
    assert.equal(implementerAsked(since), true, 'the allowed call did not run')
    assert.match(delegationResult(since), /IMPLEMENTED-MARK/)
  })

  test('the owner’s web deny refuses the call; the model is told, as for a hook deny', async () => {
    askTimeoutSeconds = 30
    const sessionId = await createSession(stack.edge())
    const since = stack.gateway.requests.length
    const turn = chat(sessionId, 'please delegate')
    const approval = await approvalOf(sessionId)
    assert.equal((await answer(approval.id, 'deny')).approval.status, 'denied')
    await turn
    assert.equal(implementerAsked(since), false, 'the denied call ran')
    const result = delegationResult(since)
    assert.match(result, /Denied by policy/)
    assert.match(result, /the owner denied this call/)
  })

  test('no answer within the bound: the approval expires and the call is denied', async () => {
    askTimeoutSeconds = 1
    const sessionId = await createSession(stack.edge())
    const since = stack.gateway.requests.length
    const started = Date.now()
    await chat(sessionId, 'please delegate')
    assert.ok(Date.now() - started >= 1_000, 'the call did not wait for its bound')
    assert.equal(implementerAsked(since), false, 'the unanswered call ran')
    assert.match(delegationResult(since), /did not answer within 1 s/)
    const [expired] = (
      await okJson(await api.approvals.$get({ query: { status: 'expired' } }), 200)
    ).approvals.filter((a) => a.sessionId === sessionId)
    assert.ok(expired, 'no expired approval')
    // A late answer does not revive it.
    const late = await answer(expired.id, 'allow')
    assert.equal(late.changed, false)
    assert.equal(late.approval.status, 'expired')
  })

  test('stopping the turn ends the wait: the approval expires and the call never runs', async () => {
    askTimeoutSeconds = 60
    const sessionId = await createSession(stack.edge())
    const since = stack.gateway.requests.length
    const turn = chat(sessionId, 'please delegate')
    const approval = await approvalOf(sessionId)
    const started = Date.now()
    const stop = await fetch(`${url}/api/sessions/${sessionId}/stop`, {
      method: 'POST',
      headers: { 'x-popagent-key': API_KEY },
    })
    assert.equal(stop.status, 200)
    await turn
    assert.ok(Date.now() - started < 10_000, 'the wait outlived the stop')
    const after = await okJson(await api.approvals[':id'].$get({ param: { id: approval.id } }), 200)
    assert.equal(after.status, 'expired')
    assert.equal(implementerAsked(since), false, 'the call ran after the stop')
  })

  test('over Telegram: a stranger’s press is refused, the owner’s is honoured once', async () => {
    askTimeoutSeconds = 30
    let update = 5_000
    const post = (body: object) =>
      fetch(`${url}/api/channels/${telegramId}/inbound`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-telegram-bot-api-secret-token': TG_SECRET,
        },
        body: JSON.stringify({ update_id: ++update, ...body }),
      })
    const press = (from: number, data: string, chat = OWNER) =>
      post({
        callback_query: {
          id: `cbq-${update + 1}`,
          from: { id: from },
          data,
          message: { message_id: 1, chat: { id: chat } },
        },
      })
    const since = stack.gateway.requests.length
    const sent = await post({
      message: {
        message_id: 1,
        from: { id: OWNER, is_bot: false },
        chat: { id: OWNER, type: 'private' },
        text: 'please delegate',
      },
    })
    assert.equal(sent.status, 202)
    // The question arrives with Allow and Deny buttons whose data names the approval.
    const question = await waitFor(
      () => telegram.callsOf('sendMessage').find((c) => c.params.reply_markup),
      15_000,
      'the question on Telegram',
    )
    assert.match(question.params.text, /wants to call agent-implementer/)
    const buttons = question.params.reply_markup.inline_keyboard[0] as { callback_data: string }[]
    const [allow, deny] = buttons.map((b) => b.callback_data)
    const id = /^appr:(apr_\w+):a$/.exec(allow!)?.[1]
    assert.ok(id, `unexpected button data ${allow}`)
    assert.equal(deny, `appr:${id}:d`)
    assert.ok(Buffer.byteLength(allow!) <= 64)
    const status = async () =>
      (await okJson(await api.approvals[':id'].$get({ param: { id } }), 200)).status
    const acks = () => telegram.callsOf('answerCallbackQuery')

    // A stranger presses Allow: refused, told so, and the approval is still pending.
    assert.equal((await press(STRANGER, allow!)).status, 202)
    await waitFor(() => acks()[0], 5_000, 'the stranger’s acknowledgement')
    assert.match(acks()[0]!.params.text, /Only the owner/)
    assert.equal(await status(), 'pending')
    assert.equal(implementerAsked(since), false)

    // The owner's own press in another conversation does not answer a question asked here.
    assert.equal((await press(OWNER, allow!, 7_777)).status, 202)
    await waitFor(() => acks()[1], 5_000, 'the other conversation’s acknowledgement')
    assert.match(acks()[1]!.params.text, /not asked here/)
    assert.equal(await status(), 'pending')

    // The owner presses Allow: honoured, acknowledged, and the call runs.
    assert.equal((await press(OWNER, allow!)).status, 202)
    await waitFor(() => acks()[2], 5_000, 'the owner’s acknowledgement')
    assert.match(acks()[2]!.params.text, /Done: allowed/)
    const decided = await okJson(await api.approvals[':id'].$get({ param: { id } }), 200)
    assert.equal(decided.status, 'allowed')
    assert.equal(decided.decidedBy, `channel:${telegramId}:${OWNER}`)

    // The owner presses Deny afterwards: nothing changes, and the press is told why.
    assert.equal((await press(OWNER, deny!)).status, 202)
    await waitFor(() => acks()[3], 5_000, 'the second press’s acknowledgement')
    assert.match(acks()[3]!.params.text, /Already answered: allowed/)
    assert.equal(await status(), 'allowed')

    // The turn goes on: the delegation ran and the answer reaches the chat.
    await waitFor(
      () =>
        telegram.callsOf('sendMessage').find((c) => /IMPLEMENTED-MARK/.test(c.params.text ?? '')),
      15_000,
      'the answer on Telegram',
    )
    assert.equal(implementerAsked(since), true)
  })

  test('over Slack: the question has Block Kit buttons; a stranger’s press changes nothing, the owner’s deny refuses the call', async () => {
    askTimeoutSeconds = 30
    const signed = (body: string, type: string) => {
      const timestamp = Math.floor(Date.now() / 1000)
      return fetch(`${url}/api/channels/${slackId}/inbound`, {
        method: 'POST',
        headers: {
          'content-type': type,
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': slackSignature(SLACK_SIGNING, timestamp, body),
        },
        body,
      })
    }
    const THREAD = '1700000000.000200'
    const press = (user: string, value: string) =>
      signed(
        `payload=${encodeURIComponent(
          JSON.stringify({
            type: 'block_actions',
            user: { id: user },
            channel: { id: 'C0APPROVE' },
            message: { ts: '1700000001.000300', thread_ts: THREAD },
            actions: [{ value, action_ts: `${Date.now()}.${user}` }],
          }),
        )}`,
        'application/x-www-form-urlencoded',
      )
    const since = stack.gateway.requests.length
    const sent = await signed(
      JSON.stringify({
        type: 'event_callback',
        event_id: 'EvApproval1',
        event: {
          type: 'message',
          user: 'U0OWNER',
          channel: 'C0APPROVE',
          channel_type: 'channel',
          ts: THREAD,
          text: 'please delegate',
        },
      }),
      'application/json',
    )
    assert.equal(sent.status, 200)
    const question = await waitFor(
      () => slack.calls.find((c) => c.method === 'chat.postMessage' && c.params.blocks),
      15_000,
      'the question on Slack',
    )
    assert.equal(question.params.thread_ts, THREAD)
    const values = question.params.blocks[1].elements.map((e: { value: string }) => e.value)
    const id = /^appr:(apr_\w+):a$/.exec(values[0])?.[1]
    assert.ok(id, `unexpected button value ${values[0]}`)
    assert.equal(values[1], `appr:${id}:d`)
    const status = async () =>
      (await okJson(await api.approvals[':id'].$get({ param: { id } }), 200)).status

    // Slack's interactivity wants each press acknowledged with a 200 (an empty body).
    const strangers = await press('U0STRANGER', values[0])
    assert.equal(strangers.status, 200)
    assert.equal(await strangers.text(), '')
    assert.equal(await status(), 'pending')
    const owners = await press('U0OWNER', values[1])
    assert.equal(owners.status, 200)
    assert.equal(await owners.text(), '')
    assert.equal(await status(), 'denied')
    const answer = await waitFor(
      () =>
        slack.calls.find(
          (c) => c.method === 'chat.postMessage' && /the owner denied/.test(c.params.text ?? ''),
        ),
      15_000,
      'the answer on Slack',
    )
    assert.equal(answer.params.thread_ts, THREAD)
    assert.equal(implementerAsked(since), false, 'the denied call ran')
  })
})
