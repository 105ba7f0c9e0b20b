/**
 * Channel answers that stream by editing the sent message (issue 38), end to end: a Telegram
 * update → the Node edge → the compute host (a chat turn to the scripted gateway, which streams
 * slowly) → a first sendMessage at the first text, editMessageText as text comes (at most one a
 * second per chat), and the saved answer's first chunk as the final edit through the durable
 * outbox; longer answers' other chunks as new messages. The Bot API is the loopback fake, which
 * keeps each message's text and answers edits as Telegram does. Real PostgreSQL throughout.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { lastUserText } from './support/chat.ts'
import { slackSignature, startFakeSlack } from './support/fake-slack.ts'
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { splitForChannel } from '../runtime/channels/split-text.ts'
import { addTelegramChannel } from './support/telegram-channel.ts'
import { okJson, typedClient, type Client } from './support/typed-client.ts'
import { waitFor } from './support/until.ts'

const ROUTE = 'remote/selected'
const API_KEY = 'channels-streaming-api-key-0123456789'
const BOT_TOKEN = '654321:telegram-stream-token-abcdefghijklm'
const TG_SECRET = 'telegram-stream-secret-token-0123'
const PLANTED = 'streamed-secret-value-9f3a7c2e51'
const SLACK_TOKEN = 'xoxb-slack-stream-token-0123456789'
const SLACK_SIGNING = 'slack-stream-signing-secret-0123456'

/** Words streamed one delta each, `delayMs` apart. */
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i} `)

/** A 10,000-character answer with a fenced code block in its middle. */
function longAnswer(): string {
  const prose = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => `${tag} sentence ${i} of a long answer.`).join(' ')
  const code = Array.from({ length: 110 }, (_, i) => `let v${i} = step(${i}) // keep this line`)
  const text = `${prose(70, 'Intro')}\n\n\`\`\`ts\n${code.join('\n')}\n\`\`\`\n\n${prose(140, 'Outro')}`
  return text.slice(0, 10_000)
}

const cut = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  )

describe('channel answers stream by editing the sent message', () => {
  let stack: TestStack
  let url: string
  let api: Client['api']
  let telegram: FakeTelegram
  let channelId: string
  let update = 5_000

  before(async () => {
    stack = await startTestStack({
      models: [{ id: ROUTE }],
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    url = await stack.listen({ apiKey: API_KEY })
    api = typedClient(url, { apiKey: API_KEY }).api
    telegram = await startFakeTelegram({ token: BOT_TOKEN })
    await okJson(await api.secrets.$post({ json: { name: 'STREAM_KEY', value: PLANTED } }), 201)
    stack.gateway.respondWith((request) => {
      const text = lastUserText(request)
      if (text.includes('SLOW')) return { text: words(30, 'w'), chunkDelayMs: 100 }
      if (text.includes('LONG')) return { text: cut(longAnswer(), 500), chunkDelayMs: 100 }
      // The secret split across deltas, each shown while the answer is written.
      if (text.includes('LEAK')) {
        return {
          text: [
            ...words(4, 'a'),
            `key ${PLANTED.slice(0, 12)}`,
            `${PLANTED.slice(12)} done `,
            ...words(12, 'b'),
          ],
          chunkDelayMs: 150,
        }
      }
      // Its end comes ~450 ms after its first text: before the chat's second is up, so the
      // final edit (through the outbox) is the first edit.
      if (text.includes('TWO')) return { text: ['Hello ', 'there'], chunkDelayMs: 150 }
      return { text: 'ok' }
    })
    channelId = (
      await addTelegramChannel(api, {
        telegramUrl: telegram.url,
        name: 'Streaming phone',
        model: ROUTE,
        botToken: BOT_TOKEN,
        webhookSecret: TG_SECRET,
      })
    ).id
  })
  after(async () => {
    stack.gateway.respondWith(undefined)
    await stack?.stop()
    await telegram?.close()
  })

  async function send(chat: number, text: string): Promise<number> {
    const id = ++update
    const response = await fetch(`${url}/api/channels/${channelId}/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG_SECRET },
      body: JSON.stringify({
        update_id: id,
        message: {
          message_id: id,
          from: { id: 42, is_bot: false },
          chat: { id: chat, type: 'private' },
          text,
        },
      }),
    })
    assert.equal(response.status, 202)
    return Date.now()
  }
  const inChat = (method: string, chat: number) =>
    telegram.callsOf(method).filter((c) => String(c.params.chat_id) === String(chat))
  /** Resolves once the chat's answer is queued and all of its outbox rows are sent. */
  const delivered = (chat: number) =>
    waitFor(
      async () => {
        const { bindings } = await okJson(
          await api.channels[':id'].bindings.$get({ param: { id: channelId } }),
        )
        const binding = bindings.find((b) => b.conversation === String(chat))
        if (!binding) return undefined
        const { chunks } = await okJson(
          await api.channels[':id'].outbox.$get({ param: { id: channelId }, query: {} }),
        )
        const mine = chunks.filter((c) => c.bindingId === binding.id)
        return mine.length > 0 && mine.every((c) => c.state === 'sent') ? mine : undefined
      },
      25_000,
      `chat ${chat} delivered`,
    )

  test('the first message goes at the first text, edits follow at most once a second, and the final text is the saved answer', async () => {
    const chat = 601
    const sentAt = await send(chat, 'SLOW please')
    const answer = words(30, 'w').join('')
    await delivered(chat)
    const sends = inChat('sendMessage', chat)
    assert.equal(sends.length, 1, 'one message, edited; never a second copy')
    const first = sends[0]!
    // The turn streams for about 3 s; the first message is there long before it ends, showing
    // only the start of the answer.
    assert.ok(first.at - sentAt < 2_000, `first message after ${first.at - sentAt} ms`)
    assert.ok(answer.startsWith(first.params.text), 'the first message is the answer so far')
    assert.notEqual(first.params.text, answer, 'sent before the answer was whole')
    const edits = inChat('editMessageText', chat)
    assert.ok(edits.length >= 2, `${edits.length} edits`)
    const times = [first.at, ...edits.map((e) => e.at)]
    for (let i = 1; i < times.length; i++) {
      assert.ok(times[i]! - times[i - 1]! >= 950, `calls ${times[i]! - times[i - 1]!} ms apart`)
    }
    for (let i = 1; i < edits.length; i++) {
      assert.notEqual(edits[i]!.params.text, edits[i - 1]!.params.text, 'only changed text')
    }
    for (const edit of edits) assert.equal(edit.params.message_id, first.messageId)
    // The message shows exactly what the answer sent whole would have been.
    assert.equal(
      telegram.messageText(String(chat), first.messageId!),
      splitForChannel(answer, 4_096)[0],
    )
    assert.deepEqual(telegram.shownIn(String(chat)), [splitForChannel(answer, 4_096)[0]])
  })

  test('a 10,000-character answer: the first message is edited to the final first chunk, and 2 more chunks follow, fences intact', async () => {
    const chat = 602
    await send(chat, 'LONG answer please')
    await delivered(chat)
    const sends = inChat('sendMessage', chat)
    assert.equal(sends.length, 3, 'the first message and two more chunks')
    const texts = telegram.shownIn(String(chat))
    assert.equal(texts.length, 3)
    assert.deepEqual(texts, splitForChannel(longAnswer(), 4_096), 'as the answer sent whole')
    assert.notEqual(sends[0]!.params.text, texts[0], 'the first message was edited to its end')
    for (const text of texts) {
      assert.ok(text.length <= 4_096)
      const fences = text.split('\n').filter((l) => l.startsWith('```'))
      assert.equal(fences.length % 2, 0, `fences closed in a chunk:\n${fences.join('\n')}`)
    }
    const lines = texts.flatMap((t) => t.split('\n')).filter((l) => l.startsWith('let v'))
    assert.equal(lines.length, 110, 'every code line arrives once')
    assert.ok(texts[0]!.startsWith('Intro sentence 0'))
    assert.ok(texts[2]!.includes('Outro'))
  })

  test('a secret never shows, not even in an edit while the answer is written', async () => {
    const chat = 603
    await send(chat, 'LEAK it')
    await delivered(chat)
    const calls = [...inChat('sendMessage', chat), ...inChat('editMessageText', chat)]
    assert.ok(calls.length >= 2, `${calls.length} calls`)
    for (const call of calls) {
      assert.ok(!String(call.params.text).includes(PLANTED), 'the secret whole')
      assert.ok(!String(call.params.text).includes(PLANTED.slice(12)), 'its second half')
    }
    const shown = telegram.shownIn(String(chat))
    assert.equal(shown.length, 1)
    assert.ok(shown[0]!.includes('key [REDACTED] done'), `redacted: ${shown[0]}`)
  })

  test('a 429 on the final edit is sent again after retry_after, and the answer shows once', async () => {
    const chat = 604
    // The turn ends within a second of its first message, so the first edit is the final one.
    telegram.refuseInChat('editMessageText', String(chat), 0, { status: 429, retryAfter: 1 })
    await send(chat, 'TWO words')
    const rows = await delivered(chat)
    const edits = inChat('editMessageText', chat)
    assert.equal(edits.length, 2, 'refused once, then made')
    assert.equal(edits[0]!.refused, 429)
    assert.ok(
      edits[1]!.at - edits[0]!.at >= 1_000,
      `retried after ${edits[1]!.at - edits[0]!.at} ms`,
    )
    const sends = inChat('sendMessage', chat)
    assert.equal(sends.length, 1, 'never sent as a second message')
    assert.ok(!String(sends[0]!.params.text).includes('there'), 'the first message: the start')
    assert.deepEqual(telegram.shownIn(String(chat)), ['Hello there'])
    assert.deepEqual(
      rows.map((r) => [r.seq, r.attempts]),
      [[1, 2]],
    )
  })

  test('a first message that can no longer be edited (deleted) gets the final text as a new message', async () => {
    const chat = 606
    telegram.refuseInChat('editMessageText', String(chat), 0, {
      status: 400,
      description: 'Bad Request: message to edit not found',
    })
    await send(chat, 'TWO words')
    const rows = await delivered(chat)
    assert.equal(inChat('editMessageText', chat)[0]!.refused, 400)
    const sends = inChat('sendMessage', chat)
    assert.equal(sends.length, 2, 'the first message, then the final text as a new one')
    assert.equal(sends[1]!.params.text, 'Hello there')
    assert.deepEqual(
      rows.map((r) => [r.seq, r.state, r.attempts]),
      [[1, 'sent', 1]],
    )
  })

  test('with streamAnswers off, the answer goes whole when the turn ends, never edited', async () => {
    const off = await okJson(
      await api.channels.$post({
        json: {
          kind: 'telegram',
          name: 'Whole answers',
          model: ROUTE,
          allowedSenders: ['42'],
          settings: {
            apiBaseUrl: telegram.url,
            mode: 'webhook',
            allowLoopback: true,
            streamAnswers: false,
          },
          secrets: { botToken: BOT_TOKEN, webhookSecret: TG_SECRET },
        },
      }),
      201,
    )
    const chat = 605
    const started = Date.now()
    const id = ++update
    const response = await fetch(`${url}/api/channels/${off.id}/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG_SECRET },
      body: JSON.stringify({
        update_id: id,
        message: {
          message_id: id,
          from: { id: 42, is_bot: false },
          chat: { id: chat },
          text: 'TWO',
        },
      }),
    })
    assert.equal(response.status, 202)
    await waitFor(() => (inChat('sendMessage', chat).length > 0 ? true : undefined), 15_000)
    assert.deepEqual(
      inChat('sendMessage', chat).map((c) => c.params.text),
      ['Hello there'],
    )
    assert.ok(inChat('sendMessage', chat)[0]!.at - started >= 300, 'sent after the turn')
    assert.equal(inChat('editMessageText', chat).length, 0)
  })

  test('Slack with streamAnswers on: the first message is updated by chat.update to the final text', async () => {
    const slack = await startFakeSlack({ token: SLACK_TOKEN })
    try {
      const channel = await okJson(
        await api.channels.$post({
          json: {
            kind: 'slack',
            name: 'Streaming team',
            model: ROUTE,
            allowedSenders: ['U0OWNER'],
            settings: { apiBaseUrl: slack.url, allowLoopback: true, streamAnswers: true },
            secrets: { botToken: SLACK_TOKEN, signingSecret: SLACK_SIGNING },
          },
        }),
        201,
      )
      const body = JSON.stringify({
        type: 'event_callback',
        event_id: 'Ev0STREAM1',
        event: {
          type: 'message',
          user: 'U0OWNER',
          text: 'SLOW please',
          channel: 'C0STREAM',
          channel_type: 'channel',
          ts: '1700000000.000009',
        },
      })
      const timestamp = Math.floor(Date.now() / 1000)
      const response = await fetch(`${url}/api/channels/${channel.id}/inbound`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': slackSignature(SLACK_SIGNING, timestamp, body),
        },
        body,
      })
      assert.equal(response.status, 200)
      const answer = splitForChannel(words(30, 'w').join(''), 4_000)[0]
      await waitFor(
        () => (slack.shownIn('C0STREAM')[0] === answer ? true : undefined),
        20_000,
        'the final text shown',
      )
      const posts = slack.calls.filter((c) => c.method === 'chat.postMessage')
      const updates = slack.calls.filter((c) => c.method === 'chat.update')
      assert.equal(posts.length, 1, 'one message')
      assert.notEqual(posts[0]!.params.text, answer, 'posted before the answer was whole')
      assert.equal(posts[0]!.params.thread_ts, '1700000000.000009', 'in the thread')
      assert.ok(updates.length >= 1)
      for (let i = 1; i < updates.length; i++) {
        assert.ok(updates[i]!.at - updates[i - 1]!.at >= 950, 'at most one update a second')
      }
      assert.deepEqual(slack.shownIn('C0STREAM'), [answer])
    } finally {
      await slack.close()
    }
  })
})
