/**
 * `deliverTo` in the UI (issue 38): the task form and the schedule form offer the owner's channel
 * conversations (every channel's bindings, none blocked) and "None"; what is picked is saved as
 * the task's or schedule's `deliverTo`. A real browser against a real popagent; the conversation
 * is bound by the owner's post route to a webhook channel whose receiver is on loopback. Also the
 * channel form's opt-in to a private-network callback (a webhook only), saved in its settings.
 * The same choices serve Evolution's "Ask in a chat" (`reviewBindingId`) on the Autonomy page, and
 * the Channels page's per-channel `streamAnswers` switch (Telegram and Slack only) lives here too.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { browserMissing, launchBrowser, type Browser } from './support/browser.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts'

const OUTBOUND = 'whsec-outbound-secret-0123456789ab'

describe('channel conversations and channel settings in the UI', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  let receiver: WebhookReceiver
  let bindingId: string
  const api = () => typedClient(stack.edge()).api

  before(async () => {
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    url = await stack.listen()
    stack.gateway.respondWith(() => ({ text: 'done' }))
    receiver = await startWebhookReceiver(OUTBOUND)
    const channel = await okJson(
      await api().channels.$post({
        json: {
          kind: 'webhook',
          name: 'Ops hook',
          allowedSenders: ['alice'],
          settings: { callbackUrl: receiver.url, allowLoopback: true },
          secrets: { signing: ['whsec-signing-secret-0123456789ab'], outbound: OUTBOUND },
        },
      }),
      201,
    )
    // The owner's post binds the conversation without a turn.
    await okJson(
      await api().channels[':id'].post.$post({
        param: { id: channel.id },
        json: { conversation: 'ops-room', text: 'hello' },
      }),
      202,
    )
    const { bindings } = await okJson(
      await api().channels[':id'].bindings.$get({ param: { id: channel.id } }),
    )
    bindingId = bindings[0]!.id
    browser = await launchBrowser()
  })
  after(async () => {
    stack?.gateway.respondWith(undefined)
    await browser?.close()
    await stack?.stop()
    await receiver?.close()
  })

  test('a task queued with a conversation picked is saved with deliverTo; with None, without', async () => {
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    await page.goto(`${url}/#/tasks`)
    const form = page.getByRole('form', { name: 'New task' })
    const deliver = form.getByLabel('Deliver result to')
    await deliver
      .locator('option', { hasText: 'Ops hook · ops-room' })
      .waitFor({ state: 'attached' })
    await deliver.selectOption({ label: 'Ops hook · ops-room' })
    await form.getByLabel('Prompt').fill('report to the ops room')
    await form.getByRole('button', { name: 'Queue task' }).click()
    await form.getByLabel('Deliver result to').waitFor()
    const saved = async (prompt: string) => {
      for (let i = 0; i < 100; i++) {
        const { tasks } = await okJson(await api().tasks.$get({ query: {} }))
        const task = tasks.find((t) => t.prompt === prompt)
        if (task) return task
        await new Promise((r) => setTimeout(r, 100))
      }
      throw new Error(`no task "${prompt}"`)
    }
    assert.equal((await saved('report to the ops room')).deliverTo, bindingId)

    await deliver.selectOption({ label: 'None' })
    await form.getByLabel('Prompt').fill('keep this one quiet')
    await form.getByRole('button', { name: 'Queue task' }).click()
    assert.equal((await saved('keep this one quiet')).deliverTo, null)
  })

  test('a schedule created with a conversation picked is saved with deliverTo', async () => {
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    await page.goto(`${url}/#/schedules`)
    const form = page.getByRole('form', { name: 'New schedule' })
    await form.getByLabel('Name', { exact: true }).fill('ops digest')
    await form.getByLabel('Cron expression').fill('@daily')
    await form.getByLabel('Prompt').fill('Digest for ops')
    const deliver = form.getByLabel('Deliver result to')
    await deliver
      .locator('option', { hasText: 'Ops hook · ops-room' })
      .waitFor({ state: 'attached' })
    await deliver.selectOption({ label: 'Ops hook · ops-room' })
    await form.getByRole('button', { name: 'Create schedule' }).click()
    await page.getByText('Created “ops digest”.').waitFor()
    const { schedules } = await okJson(await api().schedules.$get())
    assert.equal(schedules.find((s) => s.name === 'ops digest')?.deliverTo, bindingId)
  })

  test('a webhook channel made with the private-network opt-in is saved with allowPrivateCallback', async () => {
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    await page.goto(`${url}/#/channels`)
    const form = page.getByRole('form', { name: 'New channel' })
    await form.getByLabel('Name', { exact: true }).fill('LAN bridge')
    await form.getByLabel('Allowed senders', { exact: false }).fill('alice')
    await form.getByLabel('Callback URL (optional)').fill('http://192.168.1.20/hook')
    await form.getByLabel('Allow a private-network callback', { exact: false }).check()
    await form.getByLabel('Signing secret (inbound)').fill('whsec-lan-signing-secret-0123456789')
    await form.getByLabel('Outbound secret').fill('whsec-lan-outbound-secret-0123456789')
    await form.getByRole('button', { name: 'Create channel' }).click()
    let made
    for (let i = 0; i < 100 && !made; i++) {
      const { channels } = await okJson(await api().channels.$get())
      made = channels.find((c) => c.name === 'LAN bridge')
      if (!made) await new Promise((r) => setTimeout(r, 100))
    }
    assert.ok(made, 'the channel was created')
    assert.equal((made.settings as { allowPrivateCallback?: boolean }).allowPrivateCallback, true)
    // Telegram has public API hosts: the opt-in is not offered there.
    await form.getByLabel('Kind').selectOption('telegram')
    assert.equal(
      await form.getByLabel('Allow a private-network callback', { exact: false }).count(),
      0,
    )
  })
  test('the Autonomy page asks in the conversation picked (reviewBindingId); None clears it', async () => {
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    await page.goto(`${url}/#/autonomy`)
    const ask = page.getByLabel('Ask in a chat')
    await ask.locator('option', { hasText: 'Ops hook · ops-room' }).waitFor({ state: 'attached' })
    const stored = async (want: string | null) => {
      let got: string | null = null
      for (let i = 0; i < 100; i++) {
        got = (await okJson(await api().autonomy.policies.$get())).reviewBindingId
        if (got === want) return got
        await new Promise((r) => setTimeout(r, 100))
      }
      return got
    }
    await ask.selectOption({ label: 'Ops hook · ops-room' })
    assert.equal(await stored(bindingId), bindingId)
    await ask.selectOption({ label: 'None' })
    assert.equal(await stored(null), null)
  })

  test('the Channels page switches streamAnswers for Telegram and Slack, not for a webhook', async () => {
    const made = await Promise.all([
      okJson(
        await api().channels.$post({
          json: {
            kind: 'telegram',
            name: 'Tg bot',
            allowedSenders: ['1'],
            settings: {},
            secrets: { botToken: '123:tg-token-0123456789', webhookSecret: 'tg-hook-0123456789' },
          },
        }),
        201,
      ),
      okJson(
        await api().channels.$post({
          json: {
            kind: 'slack',
            name: 'Slack team',
            allowedSenders: ['U1'],
            settings: {},
            secrets: { botToken: 'xoxb-slack-0123456789', signingSecret: 'slack-sign-0123456789' },
          },
        }),
        201,
      ),
    ])
    const streams = async (id: string, want: boolean) => {
      let got: unknown
      for (let i = 0; i < 100; i++) {
        const { channels } = await okJson(await api().channels.$get())
        got = channels.find((c) => c.id === id)?.settings.streamAnswers
        if (got === want) return got
        await new Promise((r) => setTimeout(r, 100))
      }
      return got
    }
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    await page.goto(`${url}/#/channels`)
    const tg = page.getByLabel('Stream answers on Tg bot')
    const slack = page.getByLabel('Stream answers on Slack team')
    // The defaults: Telegram on, Slack off; a signed webhook has no switch.
    assert.equal(await tg.isChecked(), true)
    assert.equal(await slack.isChecked(), false)
    assert.equal(await page.getByLabel('Stream answers on Ops hook').count(), 0)
    await slack.check()
    assert.equal(await streams(made[1].id, true), true)
    await tg.uncheck()
    assert.equal(await streams(made[0].id, false), false)
    // The page shows what was stored after a reload.
    await page.reload()
    await page.getByLabel('Stream answers on Slack team').waitFor()
    assert.equal(await page.getByLabel('Stream answers on Slack team').isChecked(), true)
    assert.equal(await page.getByLabel('Stream answers on Tg bot').isChecked(), false)
  })
})
