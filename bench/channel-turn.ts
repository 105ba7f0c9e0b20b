/**
 * Chat channels (X6, issue 38): what answering through a channel adds to a chat turn, and how
 * fast the outbox delivers. One run, one scripted gateway (zero latency, the chat-turn bench's
 * 24-delta answer), popagent's real compute host and Node edge in their own processes
 * (bench/chat-turn-servers.ts), and loopback fakes of the services in this process: a Standard
 * Webhooks receiver that checks each outbound signature, and the Telegram Bot API fake.
 *
 * 1. Inbound event → first outbound chunk, against the chat API. Per round, `events` signed
 *    webhook events (`POST /api/channels/:id/inbound` on the edge → the host verifies, records,
 *    binds, runs the channel turn, queues the answer; the outbox POSTs it to the receiver), each
 *    to a new conversation (so a new binding and session, as a first message makes them), timed
 *    from the request sent to the chunk's arrival at the receiver; and as many chat turns
 *    (`POST /api/chat` on a new session, made untimed), timed to the first text delta on the
 *    stream. Rounds alternate which side goes first. Added = channel p50 − chat p50 per round;
 *    the figure is their median. A webhook answer is sent whole once the turn is saved, so the
 *    chat stream's end is reported beside it: what is left above that is the channel's own cost
 *    (binding, save read-back, outbox). Beside them, as many Telegram updates (each to a new
 *    chat): a Telegram answer streams (compute-host/channels/answer-stream.ts), so it is timed to
 *    its first sendMessage at the fake, and waited for until the chat shows the whole answer.
 * 2. Outbox throughput: `chats` × `chunks` small chunks queued on the webhook channel (pace 0) in
 *    one statement per chat (enqueue.ts, as the service queues an answer), then one owner post
 *    through the route wakes the outbox as every queued answer does. Rate = chunks between the
 *    first and last arrival over that time. Every chunk must arrive once, in order per chat. One
 *    chat alone is measured the same way (its chunks go one at a time by design).
 * 3. Pacing: answers of several chunks to several Telegram chats (1 s per chat): the least gap
 *    between two sends to one chat, and the whole delivery's span (chats go in parallel).
 */
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from '../db/drizzle-orm.ts'
import { rowsOf } from '../db/rows.ts'
import { enqueueChunks } from '../compute-host/channels/outbox/sql/enqueue.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { createId } from '../runtime/ids.ts'
import { startFakeTelegram, type FakeTelegram } from '../test/support/fake-telegram.ts'
import {
  signStandardWebhook,
  startWebhookReceiver,
  type Received,
  type WebhookReceiver,
} from '../test/support/webhook-receiver.ts'
import { benchResources } from './chat-turn.ts'
import { MODEL, REPLY, startServer } from './chat-turn-servers.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { median, percentile } from './stats.ts'

const SIGNING = 'whsec-bench-signing-secret-0123456789'
const OUTBOUND = 'whsec-bench-outbound-secret-0123456789'
const BOT_TOKEN = '123456:bench-telegram-bot-token-abcdefghij'
const TG_SECRET = 'bench-telegram-webhook-secret-0123'
const SENDER = 'bench-owner'
/** Telegram's senders are user ids. */
const TG_SENDER = '4242'
const PROMPT = 'Summarise what a chat turn does in one paragraph.'
const ANSWER = REPLY.join('')
const LAST_WORD = REPLY.at(-1)!.trim()
/** Goal for added p50; why 50 ms is in docs/benchmarks.md (channel-turn). */
const ADDED_GOAL_MS = 50
/** Telegram's cap on one bot's messages, across chats: the fastest any service takes them. */
const RATE_GOAL = 30
const TELEGRAM_PACE_MS = 1_000
const WAIT_MS = 60_000
/**
 * Untimed pause after each sample on both sides: a channel turn's tail (the chunk marked sent,
 * the event marked done, the outbox's next look) would otherwise run into the next sample.
 */
const SETTLE_MS = 30

const ms = (n: number) => n.toFixed(1)
const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`

/** Resolves when `ready()` answers, polling; fails after `timeoutMs` with `what`. */
async function until(ready: () => boolean, what: string, timeoutMs = WAIT_MS) {
  const deadline = performance.now() + timeoutMs
  while (!ready()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(5)
  }
}

async function json<T>(res: Response, status: number | number[], what: string): Promise<T> {
  if (![status].flat().includes(res.status))
    throw new Error(`${what}: ${res.status} ${await res.text()}`)
  return (await res.json()) as T
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

/**
 * Where a channel turn's time goes, from the rows it left (their `now()` is on this machine's
 * clock): sent → the event recorded → its session made → the answer saved (the session row's
 * update) → the chunk queued → the chunk at the receiver; medians over the measured events.
 */
async function channelPhases(
  db: ReturnType<typeof openNodePostgres>['db'],
  channelId: string,
  walls: Map<string, { sent: number; arrived: number }>,
): Promise<string> {
  const rows = rowsOf<{
    conversation: string
    recorded: number
    session: number
    saved: number
    queued: number
  }>(
    await db.execute(sql`
      select e.summary->>'conversation' as conversation,
        extract(epoch from e.created_at) * 1000 as recorded,
        extract(epoch from s.created_at) * 1000 as session,
        extract(epoch from s.updated_at) * 1000 as saved,
        extract(epoch from o.created_at) * 1000 as queued
      from popagent_channel_events e
      join popagent_channel_bindings b on b.id = e.binding_id
      join popagent_sessions s on s.id = b.session_id
      join popagent_channel_outbox o on o.binding_id = b.id
      where e.channel_id = ${channelId}
    `),
  )
  const of = (pick: (r: (typeof rows)[number], w: { sent: number; arrived: number }) => number) =>
    ms(
      median(
        rows
          .filter((r) => walls.has(r.conversation))
          .map((r) => pick(r, walls.get(r.conversation)!)),
      ),
    )
  return (
    `phases p50: recorded +${of((r, w) => Number(r.recorded) - w.sent)}, session ` +
    `+${of((r) => Number(r.session) - Number(r.recorded))}, saved ` +
    `+${of((r) => Number(r.saved) - Number(r.session))}, queued ` +
    `+${of((r) => Number(r.queued) - Number(r.saved))}, at the receiver ` +
    `+${of((r, w) => w.arrived - Number(r.queued))} ms`
  )
}

export async function benchChannelTurn({ quick }: BenchMode): Promise<BenchResult[]> {
  const options = quick
    ? { warm: 3, rounds: 2, events: 5, chats: 8, chunks: 5, alone: 10, tgChats: 2, tgChunks: 2 }
    : {
        warm: 10,
        rounds: 6,
        events: 30,
        chats: 32,
        chunks: 25,
        alone: 100,
        tgChats: 4,
        tgChunks: 3,
      }
  const resources = await benchResources(2, 'popagent-bench-channel-')
  const { databases, workspaceRoot, processes } = resources
  const [app, observability] = [databases[0]!, databases[1]!]
  // Arrivals at the receiver, by conversation, timed on this process's clock.
  const waiting = new Map<string, (at: number) => void>()
  const arrivals: { received: Received; at: number }[] = []
  let receiver: WebhookReceiver | undefined
  let telegram: FakeTelegram | undefined
  const handle = openNodePostgres(app.url, { max: 2 })
  try {
    receiver = await startWebhookReceiver(OUTBOUND, {
      onReceived(received) {
        const at = performance.now()
        arrivals.push({ received, at })
        waiting.get(received.body.conversation)?.(at)
      },
    })
    telegram = await startFakeTelegram({ token: BOT_TOKEN })
    const gateway = await startServer('gateway')
    processes.push(gateway)
    const host = await startServer('host', {
      databaseUrl: app.url,
      observabilityUrl: observability.url,
      gatewayUrl: gateway.url,
      workspaceRoot,
    })
    processes.push(host)
    const edge = await startServer('edge', { databaseUrl: app.url, hostUrl: host.url })
    processes.push(edge)

    const webhook = await json<{ id: string }>(
      await post(`${edge.url}/api/channels`, {
        kind: 'webhook',
        name: 'Bench webhook',
        model: MODEL,
        allowedSenders: [SENDER],
        settings: { callbackUrl: receiver.url, allowLoopback: true },
        secrets: { signing: [SIGNING], outbound: OUTBOUND },
      }),
      201,
      'creating the webhook channel',
    )
    const tg = await json<{ id: string }>(
      await post(`${edge.url}/api/channels`, {
        kind: 'telegram',
        name: 'Bench Telegram',
        model: MODEL,
        allowedSenders: [SENDER, TG_SENDER],
        settings: { apiBaseUrl: telegram.url, mode: 'webhook', allowLoopback: true },
        secrets: { botToken: BOT_TOKEN, webhookSecret: TG_SECRET },
      }),
      201,
      'creating the Telegram channel',
    )

    // 1. Inbound event → first outbound chunk, beside the chat API's first text.
    let conversations = 0
    async function channelEvent() {
      const conversation = `bench-${conversations++}`
      const arrived = new Promise<number>((resolve) => waiting.set(conversation, resolve))
      const body = JSON.stringify({ conversation, sender: SENDER, text: PROMPT })
      const id = `evt_${randomBytes(8).toString('hex')}`
      const timestamp = Math.floor(Date.now() / 1000)
      const sent = performance.now()
      const sentWall = Date.now()
      const res = await fetch(`${edge.url}/api/channels/${webhook.id}/inbound`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signStandardWebhook(SIGNING, id, timestamp, body),
        },
        body,
      })
      const acceptedMs = performance.now() - sent
      await json(res, 202, 'an inbound event')
      const at = await Promise.race([
        arrived,
        sleep(WAIT_MS).then(() => Promise.reject(new Error(`no answer to ${conversation}`))),
      ])
      waiting.delete(conversation)
      const got = arrivals.find((a) => a.received.body.conversation === conversation)!.received
      if (!got.verified || got.body.text.trim() !== ANSWER.trim()) {
        throw new Error(`the answer to ${conversation} is wrong: ${JSON.stringify(got)}`)
      }
      walls.set(conversation, { sent: sentWall, arrived: got.at })
      return { firstMs: at - sent, acceptedMs }
    }
    // The same turn from a Telegram update: the answer streams (answer-stream.ts), so its first
    // message goes at the first text; timed to that sendMessage at the fake, and checked to show
    // the whole answer once the outbox's final edit has gone (or was not needed).
    let tgChats = 0
    async function telegramEvent() {
      const chat = 9000 + tgChats++
      const sent = Date.now()
      const res = await fetch(`${edge.url}/api/channels/${tg.id}/inbound`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-telegram-bot-api-secret-token': TG_SECRET,
        },
        body: JSON.stringify({
          update_id: chat,
          message: {
            message_id: 1,
            from: { id: Number(TG_SENDER), is_bot: false },
            chat: { id: chat, type: 'private' },
            text: PROMPT,
          },
        }),
      })
      await json(res, 202, 'a Telegram update')
      const inChat = () =>
        telegram!.callsOf('sendMessage').filter((c) => String(c.params.chat_id) === String(chat))
      await until(() => inChat().length > 0, `a first message to ${chat}`)
      const firstMs = inChat()[0]!.at - sent
      await until(
        () => telegram!.shownIn(String(chat))[0]?.trim() === ANSWER.trim(),
        `the whole answer shown in ${chat}`,
      )
      return firstMs
    }
    // Wall-clock send and arrival per conversation, against PostgreSQL's timestamps (same clock).
    const walls = new Map<string, { sent: number; arrived: number }>()
    async function chatTurn() {
      const session = await json<{ id: string }>(
        await post(`${edge.url}/api/sessions`, { workspaceId: 'wsp_default' }),
        [200, 201],
        'a session',
      )
      const sent = performance.now()
      const res = await post(`${edge.url}/api/chat`, {
        sessionId: session.id,
        workspaceId: 'wsp_default',
        model: MODEL,
        message: {
          id: `u_${randomBytes(6).toString('hex')}`,
          role: 'user',
          parts: [{ type: 'text', text: PROMPT }],
        },
      })
      if (res.status !== 200) throw new Error(`chat turn: ${res.status} ${await res.text()}`)
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
      let text = ''
      let firstMs = Number.NaN
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        text += value
        if (Number.isNaN(firstMs) && text.includes('"type":"text-delta"')) {
          firstMs = performance.now() - sent
        }
      }
      if (!text.includes(LAST_WORD)) throw new Error(`chat turn without the answer: ${text}`)
      return { firstMs, endMs: performance.now() - sent }
    }

    for (let i = 0; i < options.warm; i++) {
      await channelEvent()
      await chatTurn()
    }
    const all = { channel: [] as number[], chat: [] as number[], chatEnd: [] as number[] }
    const tgFirst: number[] = []
    const tgAdded: number[] = []
    const accepted: number[] = []
    const added: number[] = []
    const overEnd: number[] = []
    for (let round = 0; round < options.rounds; round++) {
      const channel: number[] = []
      const chat: number[] = []
      const chatEnd: number[] = []
      const telegramFirst: number[] = []
      const sides = [
        async () => {
          for (let i = 0; i < options.events; i++) {
            telegramFirst.push(await telegramEvent())
            await sleep(SETTLE_MS)
          }
        },
        async () => {
          for (let i = 0; i < options.events; i++) {
            const m = await channelEvent()
            channel.push(m.firstMs)
            accepted.push(m.acceptedMs)
            await sleep(SETTLE_MS)
          }
        },
        async () => {
          for (let i = 0; i < options.events; i++) {
            const m = await chatTurn()
            chat.push(m.firstMs)
            chatEnd.push(m.endMs)
            await sleep(SETTLE_MS)
          }
        },
      ]
      if (round % 2) sides.reverse()
      for (const side of sides) await side()
      added.push(percentile(channel, 50) - percentile(chat, 50))
      tgAdded.push(percentile(telegramFirst, 50) - percentile(chat, 50))
      tgFirst.push(...telegramFirst)
      overEnd.push(percentile(channel, 50) - percentile(chatEnd, 50))
      all.channel.push(...channel)
      all.chat.push(...chat)
      all.chatEnd.push(...chatEnd)
    }
    const addedMs = median(added)
    const phases = await channelPhases(handle.db, webhook.id, walls)

    // 2. Outbox throughput on the webhook channel (no pacing), many chats and one alone.
    async function deliver(chats: number, chunks: number, tag: string) {
      const db = handle.db
      const keys = new Set<string>()
      const from = arrivals.length
      for (let c = 0; c < chats; c++) {
        const deliveryId = createId('channelDelivery')
        await enqueueChunks(db, {
          channelId: webhook.id,
          bindingId: null,
          target: { conversation: `${tag}-${c}`, thread: '' },
          deliveryId,
          chunks: Array.from({ length: chunks }, (_, i) => `${tag} chat ${c} chunk ${i + 1} `),
          paceMs: 0,
        })
        for (let i = 1; i <= chunks; i++) keys.add(`${deliveryId}.${i}`)
      }
      await json(
        await post(`${edge.url}/api/channels/${webhook.id}/post`, {
          conversation: `${tag}-wake`,
          text: 'wake',
        }),
        202,
        'the waking post',
      )
      const total = chats * chunks
      const ours = () => arrivals.slice(from).filter((a) => keys.has(a.received.id))
      await until(() => ours().length >= total, `${total} chunks (${tag})`)
      await sleep(200) // a duplicate would come now
      const got = ours()
      if (got.length !== total || new Set(got.map((a) => a.received.id)).size !== total) {
        throw new Error(`${tag}: ${got.length} arrivals of ${total} chunks, not each once`)
      }
      const lastSeq = new Map<string, number>()
      for (const a of got) {
        const seq = Number(a.received.id.split('.').at(-1))
        const chat = a.received.body.conversation
        if ((lastSeq.get(chat) ?? 0) !== seq - 1) throw new Error(`${tag}: ${chat} out of order`)
        lastSeq.set(chat, seq)
      }
      const span = got.at(-1)!.at - got[0]!.at
      return { rate: ((total - 1) / span) * 1000, span, total }
    }
    const many = await deliver(options.chats, options.chunks, 'many')
    const alone = await deliver(1, options.alone, 'alone')

    // 3. Pacing per chat on Telegram (1 s), chats in parallel.
    const text = Array.from({ length: options.tgChunks }, (_, i) =>
      `Part ${i + 1}. ${'word '.repeat(780)}`.trim(),
    ).join('\n\n')
    const tgFrom = telegram.callsOf('sendMessage').length
    const tgStart = Date.now()
    const posted = await Promise.all(
      Array.from({ length: options.tgChats }, (_, c) =>
        post(`${edge.url}/api/channels/${tg.id}/post`, { conversation: `${7000 + c}`, text }).then(
          (r) => json<{ chunks: number }>(r, 202, 'a Telegram post'),
        ),
      ),
    )
    if (posted.some((p) => p.chunks !== options.tgChunks)) {
      throw new Error(`a Telegram answer was not cut in ${options.tgChunks}`)
    }
    const tgTotal = options.tgChats * options.tgChunks
    const sends = () => telegram!.callsOf('sendMessage').slice(tgFrom)
    await until(() => sends().length >= tgTotal, `${tgTotal} Telegram sends`)
    const gaps: number[] = []
    for (let c = 0; c < options.tgChats; c++) {
      const at = sends()
        .filter((s) => String(s.params.chat_id) === `${7000 + c}`)
        .map((s) => s.at)
      for (let i = 1; i < at.length; i++) gaps.push(at[i]! - at[i - 1]!)
    }
    const minGap = Math.min(...gaps)
    const tgSpan = Math.max(...sends().map((s) => s.at)) - tgStart
    const serialMs = tgTotal * TELEGRAM_PACE_MS
    const paced = sends().length === tgTotal && minGap >= TELEGRAM_PACE_MS
    const parallel = tgSpan < serialMs - TELEGRAM_PACE_MS

    const p = (values: number[], q: number) => ms(percentile(values, q))
    return [
      {
        name: 'channel turn: inbound event to first outbound chunk, added vs chat API (p50)',
        goal: `≤ +${ADDED_GOAL_MS} ms`,
        ratio: addedMs,
        unit: 'ms',
        met: addedMs <= ADDED_GOAL_MS,
        detail:
          `signed webhook event → chunk at the receiver p50 ${p(all.channel, 50)}, p95 ` +
          `${p(all.channel, 95)} ms (202 after ${p(accepted, 50)} ms); chat API first text p50 ` +
          `${p(all.chat, 50)}, p95 ${p(all.chat, 95)} ms, stream end p50 ${p(all.chatEnd, 50)} ms ` +
          `(channel over it +${ms(median(overEnd))} ms); ${phases}; Telegram update → first ` +
          `message (streamed) p50 ${p(tgFirst, 50)}, p95 ${p(tgFirst, 95)} ms, added vs chat API ` +
          `${signed(median(tgAdded))} ms; ${options.events} each × ` +
          `${options.rounds} rounds`,
      },
      {
        name: `channel outbox: chunks delivered per second, ${options.chats} chats`,
        goal: `≥ ${RATE_GOAL}/s`,
        ratio: many.rate,
        unit: '/s',
        met: many.rate >= RATE_GOAL,
        detail:
          `${options.chats} chats × ${options.chunks} chunks to a loopback webhook receiver, no ` +
          `pacing, each once and in order (${ms(many.span)} ms); one chat alone ` +
          `${alone.rate.toFixed(0)}/s (${options.alone} chunks, one at a time by design)`,
      },
      {
        name: 'channel outbox: least gap between sends to one Telegram chat',
        goal: `≥ ${TELEGRAM_PACE_MS / 1000} s, chats in parallel`,
        ratio: minGap / 1000,
        unit: 's',
        met: paced && parallel,
        detail:
          `${options.tgChats} chats × ${options.tgChunks} chunks to the Telegram fake in ` +
          `${(tgSpan / 1000).toFixed(2)} s (one chat after another would take ≥ ` +
          `${(serialMs / 1000).toFixed(0)} s)`,
      },
    ]
  } finally {
    await handle.close()
    await receiver?.close()
    await telegram?.close()
    await resources.close()
  }
}
