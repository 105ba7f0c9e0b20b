import { and, eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { channels } from '../../db/schema/index.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import type { Logger } from '../log.ts'
import type { ChannelDirectory } from './directory.ts'
import type { ChannelService } from './service.ts'
import { markChannel } from './settings.ts'

/**
 * Long polling for the channels that pull their events (Telegram in `polling` mode): each pass
 * asks every such channel for the events after its stored offset (the service answers a long
 * poll as soon as something arrives), hands them to the service like a webhook's, then stores
 * the next offset. An event seen twice (a pass that ended before its offset was stored, or two
 * hosts polling one bot) is deduped by its id like any redelivery.
 */
const IDLE_MS = 2_000
const ERROR_PAUSE_MS = 5_000

export function createPoller(deps: {
  db: Db
  directory: ChannelDirectory
  service: Pick<ChannelService, 'acceptEvents'>
  log: Logger
}) {
  const { db, directory, service, log } = deps
  const abort = new AbortController()
  let loop: Promise<void> | undefined

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      abort.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
    })

  async function pollOne(id: string, offset: number): Promise<void> {
    const channel = await directory.get(id)
    if (!channel?.adapter.poll) return
    try {
      const { events, next } = await channel.adapter.poll(offset, abort.signal)
      await service.acceptEvents(channel, events)
      if (next !== offset) {
        await db.update(channels).set({ pollOffset: next }).where(eq(channels.id, id))
      }
      if (channel.row.state === 'error') await markChannel(db, id, null)
    } catch (error) {
      if (abort.signal.aborted) return
      const message = errorMessage(error)
      log.warn('channel poll failed', { channelId: id, error: message })
      await markChannel(db, id, message).catch(() => {})
      await pause(ERROR_PAUSE_MS)
    }
  }

  async function run(): Promise<void> {
    while (!abort.signal.aborted) {
      try {
        const polling = await db
          .select({ id: channels.id, offset: channels.pollOffset })
          .from(channels)
          .where(and(eq(channels.enabled, true), sql`${channels.settings}->>'mode' = 'polling'`))
        if (polling.length === 0) await pause(IDLE_MS)
        else await Promise.all(polling.map((c) => pollOne(c.id, c.offset ?? 0)))
      } catch (error) {
        if (abort.signal.aborted) return
        log.error('channel polling pass failed', { error: errorMessage(error) })
        await pause(ERROR_PAUSE_MS)
      }
    }
  }

  return {
    start(): void {
      loop ??= run()
    },
    async stop(): Promise<void> {
      abort.abort()
      await loop
    },
  }
}
