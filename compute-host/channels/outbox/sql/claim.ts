import { sql } from '../../../../db/drizzle-orm.ts'
import type { Db } from '../../../../db/index.ts'
import { rawRowMapper, rowsOf } from '../../../../db/rows.ts'
import { channelOutbox } from '../../../../db/schema/index.ts'

export type OutboxRow = typeof channelOutbox.$inferSelect
const toRow = rawRowMapper(channelOutbox)

/**
 * Claims up to `limit` chunks to send now: the first unsent chunk of each chat (so a chat's
 * chunks go in order and a retried chunk holds back the ones after it), when it is due, its
 * chat has had nothing sent within its pace nor its rolling cap's count within the window
 * (`window_max`, a Telegram group's 20 a minute), and no other sender holds it (SKIP LOCKED; a
 * `sending` row whose lease ran out belongs to a sender that died, and is taken again). The
 * claim leases the row for `leaseMs` and counts the attempt.
 */
export async function claimDue(db: Db, limit: number, leaseMs: number): Promise<OutboxRow[]> {
  const result = await db.execute(sql`
    with heads as (
      select distinct on (chat_key) id
      from popagent_channel_outbox
      where state in ('queued', 'sending')
      order by chat_key, id
    ),
    due as (
      select o.id
      from popagent_channel_outbox o
      join heads h on h.id = o.id
      where (
          (o.state = 'queued' and o.next_attempt_at <= now())
          or (o.state = 'sending' and o.lease_until < now())
        )
        and not exists (
          select 1 from popagent_channel_outbox s
          where s.chat_key = o.chat_key and s.state = 'sent'
            and s.sent_at > now() - make_interval(secs => o.pace_ms / 1000.0)
        )
        and (o.window_max is null or (
          select count(*) from popagent_channel_outbox s
          where s.chat_key = o.chat_key and s.state = 'sent'
            and s.sent_at > now() - make_interval(secs => o.window_ms / 1000.0)
        ) < o.window_max)
      order by o.next_attempt_at, o.id
      limit ${limit}
      for update of o skip locked
    )
    update popagent_channel_outbox o
    set state = 'sending',
        attempts = o.attempts + 1,
        lease_until = now() + make_interval(secs => ${leaseMs} / 1000.0)
    from due
    where o.id = due.id
    returning o.*
  `)
  return rowsOf<Record<string, unknown>>(result).map(toRow)
}
