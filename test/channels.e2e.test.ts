/**
 * Chat channels end to end (X6): a service → the Node edge's inbound route → the compute host
 * (verify, dedupe, allowlist, binding, a chat turn through Mastra to the scripted gateway) → the
 * durable outbox → the service again. The services are loopback fakes that speak each protocol:
 * a Standard Webhooks receiver that checks signatures itself, and a Telegram Bot API fake that
 * records calls and scripts 429 retry_after and 403. Real PostgreSQL throughout.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { lastUserText } from './support/chat.ts'
import { slackSignature, startFakeSlack, type FakeSlack } from './support/fake-slack.ts'
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient, type Client } from './support/typed-client.ts'
import { waitFor } from './support/until.ts'
import {
  signStandardWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support/webhook-receiver.ts'
import { addTelegramChannel } from './support/telegram-channel.ts'

const ROUTE = 'remote/selected'
const API_KEY = 'channels-e2e-api-key-0123456789'
const SIGNING_OLD = 'whsec-old-signing-secret-0123456789'
const SIGNING_NEW = 'whsec-new-signing-secret-0123456789'
const OUTBOUND = 'whsec-outbound-secret-0123456789ab'
const BOT_TOKEN = '123456:telegram-bot-token-abcdefghijklmnop'
const TG_SECRET = 'telegram-webhook-secret-token-0123'
const SLACK_TOKEN = 'xoxb-slack-bot-token-0123456789'
const SLACK_SIGNING = 'slack-signing-secret-0123456789ab'

/** A 10,000-character answer with a fenced code block in its middle. */
function longAnswer(): string {
  const prose = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => `${tag} sentence ${i} of a long answer.`).join(' ')
  const code = Array.from({ length: 110 }, (_, i) => `let v${i} = step(${i}) // keep this line`)
  const text = `${prose(70, 'Intro')}\n\n\`\`\`ts\n${code.join('\n')}\n\`\`\`\n\n${prose(140, 'Outro')}`
  return text.slice(0, 10_000)
}

describe('chat channels', () => {
  let stack: TestStack
  let url: string
  let api: Client['api']
  let receiver: WebhookReceiver
  let telegram: FakeTelegram
  let slack: FakeSlack
  let slackId: string
  let webhookId: string
  let telegramId: string

  before(async () => {
    stack = await startTestStack({
      models: [{ id: ROUTE }],
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    url = await stack.listen({ apiKey: API_KEY })
    api = typedClient(url, { apiKey: API_KEY }).api
    receiver = await startWebhookReceiver(OUTBOUND)
    telegram = await startFakeTelegram({ token: BOT_TOKEN })
    slack = await startFakeSlack({ token: SLACK_TOKEN })
    stack.gateway.respondWith((request) => {
      const text = lastUserText(request)
      if (text.includes('LONG')) return { text: longAnswer() }
      if (text.includes('SLOW'))
        return { text: Array.from({ length: 60 }, (_, i) => `w${i} `), chunkDelayMs: 50 }
      const said = /SAY:(\w+)/.exec(text)?.[1]
      return { text: said ? `Echo ${said}` : 'ok' }
    })
    const webhook = await okJson(
      await api.channels.$post({
        json: {
          kind: 'webhook',
          name: 'Automations',
          model: ROUTE,
          allowedSenders: ['alice'],
          settings: { callbackUrl: receiver.url, allowLoopback: true },
          secrets: { signing: [SIGNING_OLD, SIGNING_NEW], outbound: OUTBOUND },
        },
      }),
      201,
    )
    webhookId = webhook.id
    // Whole answers: these tests count the outbox's sends (streaming has its own file,
    // channels-streaming.e2e.test.ts).
    const tg = await addTelegramChannel(api, {
      telegramUrl: telegram.url,
      name: 'Phone',
      model: ROUTE,
      botToken: BOT_TOKEN,
      webhookSecret: TG_SECRET,
      streamAnswers: false,
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
    stack.gateway.respondWith(undefined)
    await stack?.stop()
    await receiver?.close()
    await telegram?.close()
    await slack?.close()
  })

  /** A signed webhook event, as an automation would send it (the sender's own signing code). */
  function signedEvent(
    body: object | string,
    options: { id?: string; secret?: string; timestamp?: number } = {},
  ) {
    const text = typeof body === 'string' ? body : JSON.stringify(body)
    const id = options.id ?? `evt_${randomBytes(6).toString('hex')}`
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000)
    return fetch(`${url}/api/channels/${webhookId}/inbound`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signStandardWebhook(
          options.secret ?? SIGNING_NEW,
          id,
          timestamp,
          text,
        ),
      },
      body: text,
    })
  }
  const telegramUpdate = (update: object, secret: string | null = TG_SECRET) =>
    fetch(`${url}/api/channels/${telegramId}/inbound`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret !== null && { 'x-telegram-bot-api-secret-token': secret }),
      },
      body: JSON.stringify(update),
    })
  const tgMessage = (updateId: number, text: string, chat = 42, from = 42, thread?: number) => ({
    update_id: updateId,
    message: {
      message_id: updateId,
      from: { id: from, is_bot: false },
      chat: { id: chat, type: 'private' },
      ...(thread && { message_thread_id: thread }),
      text,
    },
  })
  /** An Events API request as Slack signs it. */
  const slackEvent = (
    body: object,
    headers: Record<string, string> = {},
    secret = SLACK_SIGNING,
  ) => {
    const text = JSON.stringify(body)
    const timestamp = Math.floor(Date.now() / 1000)
    return fetch(`${url}/api/channels/${slackId}/inbound`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': slackSignature(secret, timestamp, text),
        ...headers,
      },
      body: text,
    })
  }
  const turnsAsked = (marker: string) =>
    stack.gateway.requests.filter(
      (r) => r.path === '/v1/chat/completions' && lastUserText(r).includes(marker),
    ).length
  const receivedText = (conversation: string) =>
    receiver.received.filter((r) => r.body.conversation === conversation).map((r) => r.body.text)

  test('a signed webhook event runs a turn and its answer is posted to the callback URL, signed', async () => {
    const res = await signedEvent({ conversation: 'c-round', sender: 'alice', text: 'SAY:hello' })
    assert.equal(res.status, 202)
    const accepted = (await res.json()) as { eventId: string; duplicate: boolean }
    assert.match(accepted.eventId, /^cev_/)
    assert.equal(accepted.duplicate, false)
    const [answer] = await waitFor(() => {
      const got = receiver.received.filter((r) => r.body.conversation === 'c-round')
      return got.length ? got : undefined
    })
    assert.equal(answer!.body.text, 'Echo hello')
    assert.equal(answer!.verified, true, 'signed with the outbound secret')
    const events = await okJson(
      await api.channels[':id'].events.$get({ param: { id: webhookId }, query: {} }),
    )
    assert.equal(events.events.find((e) => e.id === accepted.eventId)?.state, 'done')
  })

  test('a bad signature, a stale timestamp and a body over 1 MiB are refused 401, 401 and 413', async () => {
    const body = { conversation: 'c-bad', sender: 'alice', text: 'SAY:never' }
    const forged = await signedEvent(body, { secret: 'not-the-signing-secret-000000' })
    assert.equal(forged.status, 401)
    const stale = await signedEvent(body, { timestamp: Math.floor(Date.now() / 1000) - 301 })
    assert.equal(stale.status, 401)
    const huge = await signedEvent(`{"text":"${'x'.repeat(1_048_576 - 10)}"}`)
    assert.equal(huge.status, 413)
    // The old signing secret still verifies while both are listed (rotation).
    const rotated = await signedEvent({ ...body, text: 'SAY:rotated' }, { secret: SIGNING_OLD })
    assert.equal(rotated.status, 202)
    assert.equal(turnsAsked('SAY:never'), 0)
  })

  test('a redelivered event is answered duplicate and runs one turn', async () => {
    const body = { conversation: 'c-replay', sender: 'alice', text: 'SAY:once' }
    const first = await signedEvent(body, { id: 'evt_replayed_1' })
    const again = await signedEvent(body, { id: 'evt_replayed_1' })
    const a = (await first.json()) as { eventId: string; duplicate: boolean }
    const b = (await again.json()) as { eventId: string; duplicate: boolean }
    assert.deepEqual([first.status, again.status], [202, 202])
    assert.equal(b.duplicate, true)
    assert.equal(b.eventId, a.eventId)
    await waitFor(() => (receivedText('c-replay').length ? true : undefined))
    assert.equal(turnsAsked('SAY:once'), 1)
    assert.deepEqual(receivedText('c-replay'), ['Echo once'])
  })

  test('a stranger is refused and never reaches the model', async () => {
    const res = await signedEvent({
      conversation: 'c-stranger',
      sender: 'mallory',
      text: 'SAY:stranger',
    })
    assert.equal(res.status, 202)
    const { eventId } = (await res.json()) as { eventId: string }
    // Then an allowed message in the same conversation: once its answer is back, the stranger's
    // would have been asked long before.
    await signedEvent({ conversation: 'c-stranger', sender: 'alice', text: 'SAY:friend' })
    await waitFor(() => (receivedText('c-stranger').length ? true : undefined))
    assert.equal(turnsAsked('SAY:stranger'), 0, 'the gateway saw no request for the stranger')
    assert.deepEqual(receivedText('c-stranger'), ['Echo friend'])
    const events = await okJson(
      await api.channels[':id'].events.$get({ param: { id: webhookId }, query: {} }),
    )
    const refused = events.events.find((e) => e.id === eventId)
    assert.equal(refused?.state, 'refused')
  })

  test('each conversation and thread is bound to its own session, the same thread to the same one', async () => {
    for (const [thread, word] of [
      ['t1', 'one'],
      ['t2', 'two'],
      ['t1', 'three'],
    ] as const) {
      await signedEvent({ conversation: 'c-threads', thread, sender: 'alice', text: `SAY:${word}` })
      await waitFor(() =>
        receiver.received.some((r) => r.body.text === `Echo ${word}`) ? true : undefined,
      )
    }
    const { bindings } = await okJson(
      await api.channels[':id'].bindings.$get({ param: { id: webhookId } }),
    )
    const mine = bindings.filter((b) => b.conversation === 'c-threads')
    assert.equal(mine.length, 2)
    const t1 = mine.find((b) => b.thread === 't1')!
    const t2 = mine.find((b) => b.thread === 't2')!
    assert.notEqual(t1.sessionId, t2.sessionId)
    const session = await okJson(await api.sessions[':id'].$get({ param: { id: t1.sessionId! } }))
    assert.equal(session.messages.length, 4, 'two turns in the t1 session')
    const replies = receiver.received.filter((r) => r.body.conversation === 'c-threads')
    assert.deepEqual(
      replies.map((r) => [r.body.thread, r.body.text]),
      [
        ['t1', 'Echo one'],
        ['t2', 'Echo two'],
        ['t1', 'Echo three'],
      ],
    )
  })

  test('/stop aborts the running turn; /help answers without a turn', async () => {
    await signedEvent({ conversation: 'c-stop', sender: 'alice', text: 'SLOW please' })
    const { bindings } = await waitFor(async () => {
      const read = await okJson(
        await api.channels[':id'].bindings.$get({ param: { id: webhookId } }),
      )
      const b = read.bindings.find((x) => x.conversation === 'c-stop' && x.sessionId)
      if (!b) return undefined
      const session = await okJson(await api.sessions[':id'].$get({ param: { id: b.sessionId! } }))
      return session.liveTurn ? read : undefined
    })
    const binding = bindings.find((x) => x.conversation === 'c-stop')!
    await signedEvent({ conversation: 'c-stop', sender: 'alice', text: '/stop' })
    await waitFor(() => (receivedText('c-stop').includes('Stopped.') ? true : undefined))
    const session = await waitFor(async () => {
      const s = await okJson(await api.sessions[':id'].$get({ param: { id: binding.sessionId! } }))
      return s.messages.length === 2 && !s.liveTurn ? s : undefined
    })
    assert.equal(session.messages[1]?.metadata?.aborted, true)
    await signedEvent({ conversation: 'c-stop', sender: 'alice', text: '/help' })
    await waitFor(() => (receivedText('c-stop').some((t) => t.includes('/new')) ? true : undefined))
  })

  test('Telegram: updates need the secret token, redeliveries of an update_id run once, and typing shows', async () => {
    assert.equal((await telegramUpdate(tgMessage(1000, 'SAY:token'), null)).status, 401)
    assert.equal(
      (await telegramUpdate(tgMessage(1000, 'SAY:token'), 'wrong-secret-token-0000')).status,
      401,
    )
    const first = await telegramUpdate(tgMessage(1001, 'SAY:token'))
    const again = await telegramUpdate(tgMessage(1001, 'SAY:token'))
    assert.deepEqual([first.status, again.status], [202, 202])
    assert.equal(((await again.json()) as { duplicate: boolean }).duplicate, true)
    await waitFor(() => (telegram.shownIn('42').includes('Echo token') ? true : undefined))
    assert.equal(turnsAsked('SAY:token'), 1)
    assert.ok(telegram.callsOf('sendChatAction').some((c) => c.params.action === 'typing'))
    // Setting the webhook passes the secret token to Telegram.
    const setup = await api.channels[':id'].setup.$post({
      param: { id: telegramId },
      json: { publicBaseUrl: 'https://popagent.example.com' },
    })
    assert.deepEqual(await okJson(setup), { registered: true })
    const [hook] = telegram.callsOf('setWebhook')
    assert.equal(hook?.params.secret_token, TG_SECRET)
    assert.equal(
      hook?.params.url,
      `https://popagent.example.com/api/channels/${telegramId}/inbound`,
    )
  })

  test('Telegram: a 10,000-character answer goes as 3 messages within 4,096, fences intact; a 429 on chunk 2 retries only chunk 2, after retry_after', async () => {
    // Chunk 2 of this chat is refused once with retry_after 1.
    telegram.refuseInChat('sendMessage', '77', 1, { status: 429, retryAfter: 1 })
    {
      await telegramUpdate(tgMessage(1002, 'LONG answer please', 77, 42))
      const sends = await waitFor(
        () => {
          const got = telegram.callsOf('sendMessage').filter((c) => c.params.chat_id === '77')
          return got.length >= 4 ? got : undefined
        },
        20_000,
        'four sendMessage calls',
      )
      const texts = sends.map((c) => c.params.text as string)
      // 1, 2 (429), 2 again, 3: chunk 1 is not resent and chunk 3 waits for chunk 2.
      assert.equal(texts[1], texts[2], 'the refused chunk is the one sent again')
      assert.equal(new Set(texts).size, 3)
      assert.ok(
        sends[2]!.at - sends[1]!.at >= 1_000,
        `retried after ${sends[2]!.at - sends[1]!.at} ms`,
      )
      assert.ok(sends[1]!.at - sends[0]!.at >= 1_000, 'at least a second apart per chat')
      const delivered = [texts[0]!, texts[2]!, texts[3]!]
      for (const text of delivered) {
        assert.ok(text.length <= 4_096)
        const fences = text.split('\n').filter((l) => l.startsWith('```'))
        assert.equal(fences.length % 2, 0, `fences closed in a chunk:\n${fences.join('\n')}`)
      }
      const lines = delivered.flatMap((t) => t.split('\n')).filter((l) => l.startsWith('let v'))
      assert.equal(lines.length, 110, 'every code line arrives once')
      // The outbox agrees: three chunks sent, chunk 2 on its second attempt, none pending (the
      // last is marked sent just after the fake answered it).
      const delivery = await waitFor(async () => {
        const { chunks } = await okJson(
          await api.channels[':id'].outbox.$get({ param: { id: telegramId }, query: {} }),
        )
        const mine = chunks.filter(
          (c) => c.deliveryId === chunks.find((x) => x.total === 3)?.deliveryId,
        )
        return mine.every((c) => c.state === 'sent') ? mine : undefined
      })
      assert.deepEqual(
        delivery.sort((a, b) => a.seq - b.seq).map((c) => [c.seq, c.state, c.attempts]),
        [
          [1, 'sent', 1],
          [2, 'sent', 2],
          [3, 'sent', 1],
        ],
      )
    }
  })

  test('Telegram: a 403 blocks the binding and cancels its queued chunks', async () => {
    telegram.refuse('sendMessage', { status: 403 })
    const posted = await okJson(
      await api.channels[':id'].post.$post({
        param: { id: telegramId },
        json: { conversation: '99', text: `${'word '.repeat(1000)}` },
      }),
      202,
    )
    assert.equal(posted.chunks, 2)
    const chunks = await waitFor(async () => {
      const read = await okJson(
        await api.channels[':id'].outbox.$get({ param: { id: telegramId }, query: {} }),
      )
      const mine = read.chunks.filter((c) => c.deliveryId === posted.deliveryId)
      return mine.every((c) => c.state !== 'queued' && c.state !== 'sending') ? mine : undefined
    })
    assert.deepEqual(chunks.map((c) => c.state).sort(), ['cancelled', 'failed'])
    const { bindings } = await okJson(
      await api.channels[':id'].bindings.$get({ param: { id: telegramId } }),
    )
    assert.ok(bindings.find((b) => b.conversation === '99')?.blockedAt)
  })

  test('Telegram in polling mode: getUpdates brings the message, and the answer goes back', async () => {
    const polled = await addTelegramChannel(api, {
      telegramUrl: telegram.url,
      name: 'Polled',
      model: ROUTE,
      botToken: BOT_TOKEN,
    })
    telegram.queueUpdate(tgMessage(3000, 'SAY:polled', 55, 42))
    // What the chat shows (an answer streams: its first message is edited to the final text).
    await waitFor(
      () => (telegram.shownIn('55').includes('Echo polled') ? true : undefined),
      15_000,
      'the polled message answered',
    )
    // Disabled, so the rest of the file does not keep polling.
    await okJson(
      await api.channels[':id'].$patch({ param: { id: polled.id }, json: { enabled: false } }),
    )
  })

  test('Slack: the URL check is answered, a signed event is answered in its thread, a retry runs once, a bad signature is 401', async () => {
    const check = await slackEvent({
      type: 'url_verification',
      challenge: 'challenge-abc',
      token: 'x',
    })
    assert.equal(check.status, 200)
    assert.deepEqual(await check.json(), { challenge: 'challenge-abc' })
    const event = {
      type: 'event_callback',
      event_id: 'Ev0SLACK1',
      event: {
        type: 'message',
        user: 'U0OWNER',
        text: 'SAY:slack',
        channel: 'C0TEAM',
        channel_type: 'channel',
        ts: '1700000000.000001',
      },
    }
    const first = await slackEvent(event)
    const retry = await slackEvent(event, {
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_timeout',
    })
    // Slack's events are acknowledged with an empty 200 (what its interactivity asks for); the
    // retry is recorded as a duplicate and runs nothing (one turn, below).
    assert.deepEqual([first.status, retry.status], [200, 200])
    assert.deepEqual([await first.text(), await retry.text()], ['', ''])
    const forged = await slackEvent(
      { ...event, event_id: 'Ev0FORGED' },
      {},
      'not-the-signing-secret-0000',
    )
    assert.equal(forged.status, 401)
    const [posted] = await waitFor(() => {
      const got = slack.calls.filter((c) => c.method === 'chat.postMessage')
      return got.length ? got : undefined
    })
    assert.equal(posted!.token, SLACK_TOKEN)
    assert.deepEqual(posted!.params, {
      channel: 'C0TEAM',
      text: 'Echo slack',
      thread_ts: '1700000000.000001',
    })
    assert.equal(turnsAsked('SAY:slack'), 1)
    // The bot's own message (Slack sends it back as an event) is not answered.
    const own = await slackEvent({
      type: 'event_callback',
      event_id: 'Ev0BOT',
      event: {
        type: 'message',
        bot_id: 'B0POP',
        text: 'Echo slack',
        channel: 'C0TEAM',
        ts: '1700000000.000002',
      },
    })
    assert.equal(own.status, 200)
  })

  test('channel settings are the owner’s and never show a secret', async () => {
    const anonymous = typedClient(url).api
    assert.equal((await anonymous.channels.$get()).status, 401)
    const updated = await api.channels[':id'].$patch({
      param: { id: webhookId },
      json: { secrets: { outbound: 'whsec-rotated-outbound-0123456789' } },
    })
    const bodies = [
      JSON.stringify(await okJson(await api.channels.$get())),
      JSON.stringify(await okJson(await api.channels[':id'].$get({ param: { id: telegramId } }))),
      JSON.stringify(await okJson(updated)),
      JSON.stringify(await okJson(await api.secrets.$get())),
    ]
    for (const body of bodies) {
      for (const secret of [
        SLACK_TOKEN,
        SLACK_SIGNING,
        SIGNING_OLD,
        SIGNING_NEW,
        OUTBOUND,
        BOT_TOKEN,
        TG_SECRET,
        'whsec-rotated-outbound-0123456789',
      ]) {
        assert.ok(!body.includes(secret), `a secret in ${body.slice(0, 200)}`)
      }
    }
    // Health shows each channel's state: the Telegram bot that was blocked says why.
    const health = await okJson(await api.health.$get())
    const states = new Map(health.channels?.map((c) => [c.id, c]))
    assert.equal(states.get(webhookId)?.state, 'ok')
    assert.equal(states.get(telegramId)?.state, 'error')
    assert.match(states.get(telegramId)?.lastError ?? '', /403/)
    const view = await okJson(await api.channels[':id'].$get({ param: { id: webhookId } }))
    assert.deepEqual(view.secrets, { signing: 2, outbound: 1 })
  })

  test('/task queues a background task whose result is posted back to the conversation', async () => {
    await signedEvent({ conversation: 'c-task', sender: 'alice', text: '/task SAY:tasked' })
    const texts = await waitFor(
      () => {
        const got = receivedText('c-task')
        return got.some((t) => t.includes('Echo tasked')) ? got : undefined
      },
      20_000,
      'the task result',
    )
    assert.match(texts[0]!, /^Task tsk_\w+ queued/)
    assert.match(texts.at(-1)!, /completed:\n\nEcho tasked$/)
  })

  test('a schedule bound to a Telegram chat posts each run’s answer there; a missing or blocked binding is refused', async () => {
    const { bindings } = await okJson(
      await api.channels[':id'].bindings.$get({ param: { id: telegramId } }),
    )
    const chat = bindings.find((b) => b.conversation === '42' && !b.blockedAt)
    const blocked = bindings.find((b) => b.blockedAt)
    assert.ok(chat && blocked, 'the earlier Telegram tests bound chat 42 and blocked chat 99')
    const { workspaceId } = await okJson(
      await api.channels[':id'].$get({ param: { id: telegramId } }),
    )
    const schedule = (deliverTo: string) =>
      api.schedules.$post({
        json: {
          workspaceId,
          name: 'Morning report',
          cron: '0 7 * * *',
          prompt: 'SAY:scheduled',
          model: ROUTE,
          enabled: false,
          deliverTo,
        },
      })
    const missing = await schedule('cbn_missing-binding')
    assert.equal(missing.status, 404)
    const refused = await schedule(blocked.id)
    assert.equal(refused.status, 409)
    const created = await okJson(await schedule(chat.id), 201)
    assert.equal(created.deliverTo, chat.id)
    const task = await okJson(
      await api.schedules[':id'].run.$post({ param: { id: created.id } }),
      201,
    )
    assert.equal(task.deliverTo, chat.id)
    await waitFor(
      () =>
        telegram
          .callsOf('sendMessage')
          .some(
            (c) =>
              c.params.chat_id === '42' &&
              c.params.text === 'Task “Morning report” completed:\n\nEcho scheduled',
          )
          ? true
          : undefined,
      20_000,
      'the scheduled result on the Telegram chat',
    )
    // A task from the API may name a binding too; a blocked one is refused there as well.
    const direct = await api.tasks.$post({
      json: { workspaceId, prompt: 'SAY:direct', deliverTo: blocked.id },
    })
    assert.equal(direct.status, 409)
  })

  test('queued chunks survive a host restart: each is sent once, in order, after it', async () => {
    // The first try is refused for a second, so the delivery is still queued when the host stops.
    receiver.answer({ status: 503, headers: { 'retry-after': '1' } })
    const words = Array.from({ length: 3_000 }, (_, i) => `r${i}`).join(' ')
    const posted = await okJson(
      await api.channels[':id'].post.$post({
        param: { id: webhookId },
        json: { conversation: 'c-restart', text: words },
      }),
      202,
    )
    assert.equal(posted.chunks, 2)
    await waitFor(async () => {
      const { chunks } = await okJson(
        await api.channels[':id'].outbox.$get({ param: { id: webhookId }, query: {} }),
      )
      const first = chunks.find((c) => c.deliveryId === posted.deliveryId && c.seq === 1)
      return first?.attempts === 1 && first.state === 'queued' ? true : undefined
    })
    await stack.restartHost()
    const got = await waitFor(
      () => {
        const mine = receiver.received.filter((r) => r.body.conversation === 'c-restart')
        return mine.length >= 2 ? mine : undefined
      },
      15_000,
      'both chunks after the restart',
    )
    assert.deepEqual(
      got.map((r) => r.id),
      [`${posted.deliveryId}.1`, `${posted.deliveryId}.2`],
    )
    assert.deepEqual(
      got
        .map((r) => r.body.text)
        .join(' ')
        .split(' '),
      words.split(' '),
    )
  })
})
