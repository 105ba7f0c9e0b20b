/**
 * A finished task's channel delivery survives a host killed between saving the task's end and
 * queueing its post (issue 38): the end's own statement leaves a `delivery_pending` marker
 * (migration 0034's trigger), and the sweep at the next host start queues it, exactly once. The
 * crash point is reproduced as it is on disk: a task's end written (by SQL, as the runner's
 * statement would) with no observer run, then a host restart. Real PostgreSQL, the Telegram
 * loopback fake, the scripted gateway.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { sql } from '../db/drizzle-orm.ts'
import { rowsOf } from '../db/rows.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient, type Client } from './support/typed-client.ts'
import { waitFor } from './support/until.ts'
import { addTelegramChannel } from './support/telegram-channel.ts'

const ROUTE = 'remote/selected'
const API_KEY = 'task-delivery-e2e-api-key-0123456789'
const BOT_TOKEN = '123456:telegram-bot-token-abcdefghijklmnop'
const TG_SECRET = 'telegram-webhook-secret-token-0123'

describe('task deliveries survive a host killed before the post', () => {
  let stack: TestStack
  let url: string
  let api: Client['api']
  let telegram: FakeTelegram
  let channelId: string
  let workspaceId: string
  let bindingId: string

  const db = () => stack.host.resources.databases.application.db
  const sentTo42 = (text: string) =>
    telegram
      .callsOf('sendMessage')
      .filter((c) => c.params.chat_id === '42' && c.params.text === text).length

  before(async () => {
    stack = await startTestStack({
      models: [{ id: ROUTE }],
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    url = await stack.listen({ apiKey: API_KEY })
    api = typedClient(url, { apiKey: API_KEY }).api
    telegram = await startFakeTelegram({ token: BOT_TOKEN })
    stack.gateway.respondWith(() => ({ text: 'Echo delivered' }))
    const tg = await addTelegramChannel(api, {
      telegramUrl: telegram.url,
      name: 'Phone',
      model: ROUTE,
      botToken: BOT_TOKEN,
      webhookSecret: TG_SECRET,
    })
    channelId = tg.id
    workspaceId = tg.workspaceId
    // A first message binds chat 42.
    const inbound = await fetch(`${url}/api/channels/${channelId}/inbound`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-telegram-bot-api-secret-token': TG_SECRET,
      },
      body: JSON.stringify({
        update_id: 1,
        message: {
          message_id: 1,
          from: { id: 42, is_bot: false },
          chat: { id: 42, type: 'private' },
          text: 'hello',
        },
      }),
    })
    assert.equal(inbound.status, 202)
    const { bindings } = await waitFor(async () => {
      const got = await okJson(
        await api.channels[':id'].bindings.$get({ param: { id: channelId } }),
      )
      return got.bindings.length > 0 ? got : undefined
    })
    bindingId = bindings[0]!.id
  })
  after(async () => {
    stack.gateway.respondWith(undefined)
    await stack?.stop()
    await telegram?.close()
  })

  test('a result saved but never posted is posted once after a restart; one posted is not posted again', async () => {
    // The ordinary path: the runner ends the task and the observer queues its post.
    const ran = await okJson(
      await api.tasks.$post({ json: { workspaceId, prompt: 'run me', deliverTo: bindingId } }),
      201,
    )
    const ranText = `Task “${ran.title}” completed:\n\nEcho delivered`
    await waitFor(() => (sentTo42(ranText) > 0 ? true : undefined), 20_000, 'the run result')

    // The crash point: the task's end is committed, the host dies before the post. The task is
    // enqueued not due (no runner takes it) and ended by the statement the runner would write;
    // no observer hears of it.
    const crashed = await Tasks.enqueue(db(), {
      source: 'user',
      workspaceId,
      title: 'Crashed before the post',
      prompt: 'never run here',
      deliverToBindingId: bindingId,
      nextAttemptAt: new Date(Date.now() + 3_600_000),
    })
    await db().execute(sql`
      update popagent_agent_tasks
      set state = 'completed', result = 'Saved, not posted', finished_at = now()
      where id = ${crashed.id}
    `)
    const crashedText = 'Task “Crashed before the post” completed:\n\nSaved, not posted'
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    assert.equal(sentTo42(crashedText), 0, 'nothing posts it before the restart')

    await stack.restartHost()
    await waitFor(() => (sentTo42(crashedText) > 0 ? true : undefined), 15_000, 'the swept result')
    // A second restart sweeps again: nothing is left pending, nothing is posted twice.
    await stack.restartHost()
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    assert.equal(sentTo42(crashedText), 1)
    assert.equal(sentTo42(ranText), 1)
    const pending = rowsOf<{ id: string }>(
      await db().execute(sql`select id from popagent_agent_tasks where delivery_pending`),
    )
    assert.deepEqual(pending, [])
  })
})
