/**
 * Telegram's group limit (issue 38, design §3: ≥ 1 s per chat, 20 a minute per group): the outbox
 * sends a group chat (negative chat id) at most 20 chunks per rolling window, and a private chat
 * queued beside it is neither capped nor held up. The host runs with POPAGENT_CHANNEL_PACE_SCALE
 * 0.1, so the minute is 6 s and the second 100 ms; the fake Telegram on loopback records when
 * each sendMessage arrived. Real PostgreSQL and the real outbox engine.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { msUntilDue } from '../compute-host/channels/outbox/sql/next-due.ts'
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient, type Client } from './support/typed-client.ts'
import { waitFor } from './support/until.ts'
import { addTelegramChannel } from './support/telegram-channel.ts'

const SCALE = 0.1
const WINDOW_MS = 60_000 * SCALE
const API_KEY = 'group-pace-e2e-api-key-0123456789'
const BOT_TOKEN = '123456:telegram-bot-token-abcdefghijklmnop'
const GROUP = '-1001234567890'
const PRIVATE = '43'

describe('Telegram group pacing', () => {
  let stack: TestStack
  let api: Client['api']
  let telegram: FakeTelegram
  let channelId: string

  before(async () => {
    stack = await startTestStack({
      models: [{ id: 'remote/selected' }],
      hostEnv: {
        POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
        POPAGENT_CHANNEL_PACE_SCALE: String(SCALE),
      },
    })
    const url = await stack.listen({ apiKey: API_KEY })
    api = typedClient(url, { apiKey: API_KEY }).api
    telegram = await startFakeTelegram({ token: BOT_TOKEN })
    const tg = await addTelegramChannel(api, {
      telegramUrl: telegram.url,
      name: 'Groups',
      botToken: BOT_TOKEN,
    })
    channelId = tg.id
  })
  after(async () => {
    await stack?.stop()
    await telegram?.close()
  })

  const sentTo = (chat: string) =>
    telegram.callsOf('sendMessage').filter((c) => String(c.params.chat_id) === chat && !c.refused)
  const post = (conversation: string, text: string) =>
    api.channels[':id'].post.$post({ param: { id: channelId }, json: { conversation, text } })

  test('a group gets 20 chunks per rolling window, the 21st only after the window; a private chat beside it is not held', async () => {
    for (let i = 1; i <= 25; i++) await okJson(await post(GROUP, `group ${i}`), 202)
    for (let i = 1; i <= 22; i++) await okJson(await post(PRIVATE, `private ${i}`), 202)

    const group = await waitFor(
      () => (sentTo(GROUP).length === 25 ? sentTo(GROUP) : undefined),
      WINDOW_MS * 3,
      'all 25 group chunks',
    )
    assert.deepEqual(
      group.map((c) => c.params.text),
      Array.from({ length: 25 }, (_, i) => `group ${i + 1}`),
    )
    const first = group[0]!.at
    assert.ok(
      group[20]!.at - first >= WINDOW_MS,
      `the 21st went ${group[20]!.at - first} ms after the first`,
    )
    // No rolling window ever held more than 20.
    for (let i = 20; i < group.length; i++) {
      assert.ok(group[i]!.at - group[i - 20]!.at >= WINDOW_MS, `chunk ${i + 1} within the window`)
    }
    // The private chat has no cap: its 22 went at the chat's pace, all before the group's 21st.
    const mine = sentTo(PRIVATE)
    assert.equal(mine.length, 22)
    assert.ok(
      mine.at(-1)!.at < group[20]!.at,
      `the private chat's last went ${mine.at(-1)!.at - first} ms after the group's first, the group's 21st ${group[20]!.at - first} ms`,
    )
    // Once the last send is marked (its answer read after the fake recorded it), nothing is open
    // and the engine is told to sleep, not to spin.
    const db = stack.host.resources.databases.application.db
    await waitFor(async () => ((await msUntilDue(db)) === undefined ? true : undefined), 5_000)
  })

  test('while a group waits for its window, the engine is told when room comes, not "now"', async () => {
    const db = stack.host.resources.databases.application.db
    // The window may still hold the first test's last sends: wait it out, then fill it.
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS))
    const before = sentTo(GROUP).length
    for (let i = 1; i <= 21; i++) await okJson(await post(GROUP, `again ${i}`), 202)
    await waitFor(() => (sentTo(GROUP).length === before + 20 ? true : undefined), WINDOW_MS)
    // The 20th is marked sent once its answer is read: let that commit.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const ms = await msUntilDue(db)
    assert.ok(ms !== undefined && ms > 0 && ms <= WINDOW_MS, `due in ${ms} ms`)
    await waitFor(() => (sentTo(GROUP).length === before + 21 ? true : undefined), WINDOW_MS * 2)
  })
})
