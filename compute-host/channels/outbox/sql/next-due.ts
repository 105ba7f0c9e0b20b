import { sql } from '../../../../db/drizzle-orm.ts'
import type { Db } from '../../../../db/index.ts'
import { rowsOf } from '../../../../db/rows.ts'

/**
 * Milliseconds until the outbox has something to claim, read from each chat's first unsent
 * chunk (the only one claimable): a retry coming due, the chat's pace passing, a dead sender's
 * lease running out, a full rolling window making room. Undefined when nothing is open. The engine sleeps that long unless a new
 * delivery wakes it first.
 *
 * The floor at 0 is applied here, not in SQL: PostgreSQL's `greatest` skips nulls, so
 * `greatest(0, <min over no rows>)` is 0, and an empty outbox read as "due now" kept the engine
 * claiming in a loop as fast as the database answered.
 */
export async function msUntilDue(db: Db): Promise<number | undefined> {
  const result = await db.execute(sql`
    with heads as (
      select distinct on (chat_key)
        chat_key, state, next_attempt_at, lease_until, pace_ms, window_max, window_ms
      from popagent_channel_outbox
      where state in ('queued', 'sending')
      order by chat_key, id
    )
    select (extract(epoch from (min(
      greatest(
        case when h.state = 'sending' then h.lease_until else h.next_attempt_at end,
        coalesce((select max(s.sent_at) from popagent_channel_outbox s
                  where s.chat_key = h.chat_key and s.state = 'sent'), '-infinity'::timestamptz)
          + make_interval(secs => h.pace_ms / 1000.0),
        -- A full rolling window: room comes when its oldest counted send leaves it.
        case when h.window_max is null then '-infinity'::timestamptz else coalesce(
          (select s.sent_at from popagent_channel_outbox s
           where s.chat_key = h.chat_key and s.state = 'sent'
           order by s.sent_at desc offset h.window_max - 1 limit 1),
          '-infinity'::timestamptz
        ) + make_interval(secs => h.window_ms / 1000.0) end
      )
    ) - now())) * 1000)::float8 as ms
    from heads h
  `)
  const ms = rowsOf<{ ms: number | string | null }>(result)[0]?.ms
  return ms === null || ms === undefined ? undefined : Math.max(0, Number(ms))
}
