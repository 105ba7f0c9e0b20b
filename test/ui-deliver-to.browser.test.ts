/**
 * `deliverTo` in the UI (issue 38): the task form and the schedule form offer the owner's channel
 * conversations (every channel's bindings, none blocked) and "None"; what is picked is saved as
 * the task's or schedule's `deliverTo`. A real browser against a real popagent; the conversation
 * is bound by the owner's post route to a webhook channel whose receiver is on loopback. Also the
 * channel form's opt-in to a private-network callback (a webhook only), saved in its settings.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { browserMissing, launchBrowser, type Browser } from './support/browser.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts'

const OUTBOUND = 'whsec-outbound-secret-0123456789ab'

describe('deliverTo on the task and schedule forms', { skip: browserMissing }, () => {
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
})
