/**
 * Chat channels under the faults their services really produce, against the loopback Telegram
 * fake (test/support/fake-telegram.ts) and a real stack (edge → compute host → outbox):
 * - a redelivery storm: one update posted many times at once, as Telegram does when its webhook
 *   calls time out, must run one turn and send one answer;
 * - 429 bursts: several chats' long posts, with `retry_after` refusals on chunks chosen at
 *   random, must arrive whole: every chunk once, in order, none before the service's delay.
 * Chunks are counted by what the fake accepted, per chat, by their text (each chunk's words are
 * unique, so a resent chunk shows as a repeat and a dropped one as a gap).
 * Random but seeded, so a failure can be replayed: the seed is printed with the figures; rerun
 * with POPAGENT_FAULT_SEED=<n>.

 * - kill -9 of a `popagent host` process while its outbox sends to a slow webhook receiver, and
 *   a fresh host in its place: every chunk must arrive, in order per conversation. Counted by the
 *   chunk's stable key (`webhook-id`, `<delivery>.<seq>`): the chunk in flight at a kill may
 *   arrive twice (the dead host could not know it was received; the engine promises at least
 *   once, with the key for the receiver to dedupe), so a repeat of a key is counted apart and may
 *   not exceed the chunks that were in flight at the kills.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createChannel } from '../../compute-host/channels/settings.ts'
import { enqueueChunks } from '../../compute-host/channels/outbox/sql/enqueue.ts'
import { openVault } from '../../compute-host/secrets/vault.ts'
import { eq } from '../../db/drizzle-orm.ts'
import { channelOutbox } from '../../db/schema/index.ts'
import { splitForChannel } from '../../runtime/channels/split-text.ts'
import { createSecretRedactor } from '../../runtime/redaction.ts'
import { startScriptedGateway } from '../support/scripted-gateway.ts'
import { startWebhookReceiver } from '../support/webhook-receiver.ts'
import { startHostProcess, type HostProcess } from './support/process-faults/host-process.ts'
import { lastUserText } from '../support/chat.ts'
import { startFakeTelegram, type TelegramCall } from '../support/fake-telegram.ts'
import { seededRandom } from '../support/seeded-random.ts'
import { startTestStack } from '../support/stack.ts'
import { okJson, typedClient } from '../support/typed-client.ts'
import { waitFor } from '../support/until.ts'
import { addTelegramChannel } from '../support/telegram-channel.ts'
import { faultMode, recordFigures, sized } from './mode.ts'
import { openFaultDatabases } from './support/process-faults/fault-databases.ts'

const SEED = Number(process.env.POPAGENT_FAULT_SEED ?? Date.now() % 100_000)
const STORM = sized(24, 120)
const CHATS = sized(3, 8)
const WORDS_PER_CHAT = sized(1_200, 2_600)
const REFUSALS_PER_CHAT = sized(2, 4)
/** Telegram's message limit (the adapter cuts at it), to know each post's chunk count. */
const TELEGRAM_MAX_CHARS = 4_096
// A host start is most of this scenario's time: short mode kills once.
const KILLS = sized(1, 6)
const CONVERSATIONS = sized(4, 10)
const CHUNKS_PER_CONVERSATION = sized(6, 20)
const OUTBOX_LEASE_MS = 1_000
/** The key startHostProcess gives every host (host-process.ts), so this test's vault matches. */
const HOST_VAULT_KEY = Buffer.alloc(32, 7).toString('base64')
const OUTBOUND = 'whsec-fault-outbound-secret-0123456789'

const ROUTE = 'remote/selected'
const API_KEY = 'channels-fault-api-key-0123456789'
const BOT_TOKEN = '654321:telegram-fault-token-abcdefghijklmn'
const TG_SECRET = 'telegram-fault-secret-token-012345'

test(
  `chat channels under redelivery storms and 429 bursts (${faultMode}: ${STORM} redeliveries, ${CHATS} chats, seed ${SEED})`,
  { timeout: sized(60_000, 300_000) },
  async () => {
    const random = seededRandom(SEED)
    const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))
    const stack = await startTestStack({
      models: [{ id: ROUTE }],
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    const telegram = await startFakeTelegram({ token: BOT_TOKEN })
    try {
      const url = await stack.listen({ apiKey: API_KEY })
      const { api } = typedClient(url, { apiKey: API_KEY })
      stack.gateway.respondWith((request) => {
        const said = /SAY:(\w+)/.exec(lastUserText(request))?.[1]
        return { text: said ? `Echo ${said}` : 'ok' }
      })
      const channel = await addTelegramChannel(api, {
        telegramUrl: telegram.url,
        name: 'Storms',
        model: ROUTE,
        botToken: BOT_TOKEN,
        webhookSecret: TG_SECRET,
      })
      const sendsTo = (chat: string): TelegramCall[] =>
        telegram.callsOf('sendMessage').filter((c) => c.params.chat_id === chat)

      // The storm: one update, posted STORM times at once.
      const marker = `storm${SEED}`
      const update = JSON.stringify({
        update_id: 10_000 + SEED,
        message: {
          message_id: 1,
          from: { id: 42, is_bot: false },
          chat: { id: 42, type: 'private' },
          text: `SAY:${marker}`,
        },
      })
      const answers = await Promise.all(
        Array.from({ length: STORM }, () =>
          fetch(`${url}/api/channels/${channel.id}/inbound`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-telegram-bot-api-secret-token': TG_SECRET,
            },
            body: update,
          }).then(async (r) => ({
            status: r.status,
            body: (await r.json()) as { eventId?: string; duplicate?: boolean },
          })),
        ),
      )
      assert.deepEqual(
        [...new Set(answers.map((a) => a.status))],
        [202],
        'every redelivery is accepted',
      )
      const firsts = answers.filter((a) => a.body.duplicate !== true).length
      await waitFor(
        // What the chat shows: a streamed answer's first message is edited to its final text.
        () => (telegram.shownIn('42').includes(`Echo ${marker}`) ? true : undefined),
        20_000,
        'the storm’s answer',
      )
      const turns = stack.gateway.requests.filter(
        (r) => r.path === '/v1/chat/completions' && lastUserText(r).includes(marker),
      ).length
      // Messages sent to the chat for the storm (one, edited as it streams) and showing its answer.
      const stormAnswers = telegram.shownIn('42').filter((t) => t === `Echo ${marker}`).length
      const stormMessages = sendsTo('42').filter((c) => c.refused === undefined).length

      // The bursts: each chat gets one long post; its sends are refused 429 at random chunks.
      // A refusal's `skip` counts that chat's calls after the previous refusal (whose retry is
      // the next call), so each one is placed within the calls still to come and is always met.
      const chats = Array.from({ length: CHATS }, (_, i) => String(700 + i))
      const wordsOf = (chat: string) =>
        Array.from({ length: WORDS_PER_CHAT }, (_, i) => `c${chat}w${i}`)
      let scripted = 0
      for (const chat of chats) {
        const chunks = splitForChannel(wordsOf(chat).join(' '), TELEGRAM_MAX_CHARS).length
        let at = 1
        for (let r = 0; r < REFUSALS_PER_CHAT; r++) {
          const skip = between(0, Math.min(2, chunks - at))
          telegram.refuseInChat('sendMessage', chat, skip, { status: 429, retryAfter: 1 })
          at += skip
          scripted++
        }
      }
      const posts = await Promise.all(
        chats.map(async (chat) => {
          const words = wordsOf(chat)
          const posted = await okJson(
            await api.channels[':id'].post.$post({
              param: { id: channel.id },
              json: { conversation: chat, text: words.join(' ') },
            }),
            202,
          )
          return { chat, words, ...posted }
        }),
      )
      const deliveries = new Set(posts.map((p) => p.deliveryId))
      const outbox = await waitFor(
        async () => {
          const { chunks } = await okJson(
            await api.channels[':id'].outbox.$get({ param: { id: channel.id }, query: {} }),
          )
          const mine = chunks.filter((c) => deliveries.has(c.deliveryId))
          const total = posts.reduce((n, p) => n + p.chunks, 0)
          return mine.length === total && mine.every((c) => c.state === 'sent') ? mine : undefined
        },
        sized(40_000, 240_000),
        'every chunk sent',
      )

      let lost = 0
      let duplicated = 0
      let outOfOrder = 0
      let early = 0
      let refusedSeen = 0
      for (const post of posts) {
        const calls = sendsTo(post.chat).sort((a, b) => a.at - b.at)
        const accepted = calls.filter((c) => c.refused === undefined)
        refusedSeen += calls.length - accepted.length
        // A retry must wait out retry_after: the next call to that chat a second or more later.
        calls.forEach((call, i) => {
          const next = calls[i + 1]
          if (call.refused === 429 && next && next.at - call.at < 1_000) early++
        })
        const texts = accepted.map((c) => c.params.text as string)
        duplicated += texts.length - new Set(texts).size
        const got = [...new Set(texts)].join(' ').split(/\s+/)
        const expected = new Set(post.words)
        lost += post.words.filter((w) => !got.includes(w)).length
        const inOrder = got.filter((w) => expected.has(w))
        if (inOrder.join(' ') !== post.words.filter((w) => got.includes(w)).join(' ')) outOfOrder++
      }
      const attempts = outbox.map((c) => c.attempts)
      const figures = {
        seed: SEED,
        redeliveries: STORM,
        acceptedAsNew: firsts,
        turns,
        stormAnswers,
        stormMessages,
        chats: CHATS,
        chunks: outbox.length,
        refusalsScripted: scripted,
        refusalsServed: refusedSeen,
        retriedChunks: attempts.filter((a) => a > 1).length,
        lost,
        duplicated,
        chatsOutOfOrder: outOfOrder,
        retriesBeforeRetryAfter: early,
      }
      await recordFigures('channels', figures)

      assert.equal(firsts, 1, 'one delivery of the storm is new, the rest are duplicates')
      assert.equal(turns, 1, 'the storm ran one turn')
      assert.equal(stormAnswers, 1, 'the storm got one answer')
      assert.equal(stormMessages, 1, 'in one message')
      assert.equal(refusedSeen, scripted, 'every scripted 429 was met')
      assert.equal(lost, 0, 'lost words')
      assert.equal(duplicated, 0, 'chunks sent twice')
      assert.equal(outOfOrder, 0, 'chats whose chunks arrived out of order')
      assert.equal(early, 0, 'retries sent before retry_after')
      assert.ok(
        posts.every((p) => p.chunks >= 2),
        'each post is long enough to be cut',
      )
    } finally {
      stack.gateway.respondWith(undefined)
      await stack.stop()
      await telegram.close()
    }
  },
)

test(
  `kill -9 of a host while its outbox sends (${faultMode}: ${KILLS} kills, ${CONVERSATIONS}×${CHUNKS_PER_CONVERSATION} chunks, seed ${SEED})`,
  { timeout: sized(90_000, 400_000) },
  async () => {
    const random = seededRandom(SEED + 1)
    const began = Date.now()
    let setupDone = began
    const cleanup: Array<() => Promise<unknown>> = []
    try {
      const { application, observability, handle } = await openFaultDatabases(cleanup)
      const { db } = handle
      const gateway = await startScriptedGateway({ models: [{ id: ROUTE }] })
      cleanup.push(() => gateway.close())
      const receiver = await startWebhookReceiver(OUTBOUND)
      cleanup.push(() => receiver.close())
      // A slow service: each answer takes a while, so a kill lands with a chunk in flight.
      receiver.hold(120)
      const workspaceRoot = await mkdtemp(join(tmpdir(), 'popagent-faults-'))
      cleanup.push(() => rm(workspaceRoot, { recursive: true, force: true }))
      await mkdir(join(workspaceRoot, 'popagent'))

      // The channel, made as the host makes it (its secrets in the vault the hosts share).
      const vault = await openVault({
        env: { POPAGENT_SECRET_KEY: HOST_VAULT_KEY, POPAGENT_SECRET_KEYS_PREVIOUS: [] },
        db,
        redactor: createSecretRedactor(),
      })
      const channel = await createChannel(
        { db, vault },
        {
          kind: 'webhook',
          name: 'Killed mid-send',
          allowedSenders: ['alice'],
          settings: { callbackUrl: receiver.url, allowLoopback: true },
          secrets: { signing: ['whsec-fault-signing-secret-0123456789'], outbound: OUTBOUND },
        },
      )
      const deliveries = Array.from({ length: CONVERSATIONS }, (_, i) => ({
        id: `dlv_fault-${SEED}-${i}`,
        conversation: `conv-${i}`,
      }))
      for (const d of deliveries) {
        await enqueueChunks(db, {
          channelId: channel.id,
          bindingId: null,
          target: { conversation: d.conversation, thread: '' },
          deliveryId: d.id,
          chunks: Array.from(
            { length: CHUNKS_PER_CONVERSATION },
            (_, i) => `${d.id} part ${i + 1}`,
          ),
          paceMs: 0,
        })
      }

      const hostEnv = {
        databaseUrl: application.url,
        observabilityUrl: observability.url,
        gatewayUrl: gateway.url,
        workspaceRoot,
        leaseMs: 30_000,
        extra: { POPAGENT_OUTBOX_LEASE_MS: String(OUTBOX_LEASE_MS) },
      }
      const everyHost: HostProcess[] = []
      cleanup.push(() => Promise.all(everyHost.map((h) => h.stop())))
      const hostStartsMs: number[] = []
      const launch = async () => {
        const started = Date.now()
        const host = await startHostProcess(`host-${everyHost.length}`, hostEnv)
        hostStartsMs.push(Date.now() - started)
        everyHost.push(host)
        return host
      }
      setupDone = Date.now()
      let host = await launch()
      const sending = async () =>
        (await db.select().from(channelOutbox).where(eq(channelOutbox.state, 'sending'))).length
      let inFlightAtKills = 0
      let killsMidSend = 0
      for (let k = 0; k < KILLS; k++) {
        // A random moment after some chunks went, then the first moment a chunk is in flight.
        const after = receiver.received.length + 1 + Math.floor(random() * 4)
        await waitFor(
          () => (receiver.received.length >= after ? true : undefined),
          20_000,
          'chunks to flow',
        )
        await waitFor(async () => ((await sending()) > 0 ? true : undefined), 5_000).catch(
          () => undefined,
        )
        const inFlight = await sending()
        await host.kill()
        inFlightAtKills += inFlight
        if (inFlight > 0) killsMidSend++
        host = await launch()
      }
      const total = CONVERSATIONS * CHUNKS_PER_CONVERSATION
      await waitFor(
        async () => {
          const rows = await db.select().from(channelOutbox)
          return rows.length === total && rows.every((r) => r.state === 'sent') ? true : undefined
        },
        sized(40_000, 200_000),
        'every chunk sent after the kills',
      )

      // Count by key: first arrivals in order per conversation, repeats apart.
      const seen = new Map<string, number>()
      for (const r of receiver.received) seen.set(r.id, (seen.get(r.id) ?? 0) + 1)
      let lost = 0
      let outOfOrder = 0
      for (const d of deliveries) {
        const keys = Array.from({ length: CHUNKS_PER_CONVERSATION }, (_, i) => `${d.id}.${i + 1}`)
        lost += keys.filter((key) => !seen.has(key)).length
        const firsts = [
          ...new Set(receiver.received.filter((r) => r.id.startsWith(`${d.id}.`)).map((r) => r.id)),
        ]
        if (firsts.join(' ') !== keys.filter((key) => seen.has(key)).join(' ')) outOfOrder++
      }
      const resent = [...seen.values()].reduce((n, count) => n + count - 1, 0)
      const unverified = receiver.received.filter((r) => !r.verified).length
      const figures = {
        seed: SEED,
        kills: KILLS,
        killsMidSend,
        chunks: total,
        received: receiver.received.length,
        distinctKeys: seen.size,
        lost,
        // Repeats of a key beyond the chunks in flight at the kills: a chunk sent twice that
        // no kill excuses.
        duplicated: Math.max(0, resent - inFlightAtKills),
        resentInFlight: resent,
        inFlightAtKills,
        conversationsOutOfOrder: outOfOrder,
        unverified,
        outboxLeaseMs: OUTBOX_LEASE_MS,
        hostStartsMs,
        setupMs: setupDone - began,
      }
      await recordFigures('channels-kill', figures)

      assert.equal(lost, 0, 'chunks lost')
      assert.equal(seen.size, total, 'distinct chunk keys received')
      assert.equal(outOfOrder, 0, 'conversations whose chunks arrived out of order')
      assert.equal(
        figures.duplicated,
        0,
        `${resent} chunks arrived twice, more than the ${inFlightAtKills} in flight at the kills`,
      )
      assert.equal(unverified, 0, 'every chunk signed')
      assert.ok(killsMidSend > 0, 'no kill landed while a chunk was in flight: the fault was idle')
      for (const h of everyHost.slice(-1)) assert.ok(h.alive(), `${h.name} died unasked`)
    } finally {
      for (const step of cleanup.reverse()) await step().catch(() => {})
    }
  },
)
