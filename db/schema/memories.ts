import { sql } from '../drizzle-orm.ts'
import { check, index, pgTable, text, timestamp, uniqueIndex } from '../drizzle-pg-core.ts'
import {
  EVOLUTION_KEY_PATTERN,
  FACT_KEY_PATTERN,
  MEMORY_CONTENT_MAX,
  MEMORY_OWNERS,
} from '../memory-enums.ts'
import { timestamps } from './_columns.ts'
import { sessions } from './sessions.ts'

const owners = sql.raw(MEMORY_OWNERS.map((o) => `'${o}'`).join(', '))

/**
 * Long-term memories (X1). A `user` memory is the owner's: it has no key, and only the owner
 * changes or deletes it (runtime/memories/ refuses everyone else; a trigger in migration 0010
 * refuses the `agent`, `evolution` and `retention` actors in the database too). `agent` and
 * `evolution` facts are keyed; a new fact for a key supersedes the live one, which stays as a row
 * with `superseded_at` set, so a key's history is its rows in order. Provenance is where the
 * memory came from: the session, turn and task, when there was one.
 */
export const memories = pgTable(
  'popagent_memories',
  {
    id: text().primaryKey(),
    owner: text({ enum: MEMORY_OWNERS }).notNull(),
    agentId: text(),
    key: text(),
    content: text().notNull(),
    sessionId: text().references(() => sessions.id, { onDelete: 'set null' }),
    turnId: text(),
    taskId: text(),
    supersededBy: text(),
    supersededAt: timestamp({ withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    check('popagent_memories_owner', sql`${t.owner} in (${owners})`),
    check(
      'popagent_memories_content_length',
      sql`char_length(${t.content}) between 1 and ${sql.raw(String(MEMORY_CONTENT_MAX))}`,
    ),
    check(
      'popagent_memories_key_shape',
      sql`case ${t.owner}
        when 'user' then ${t.key} is null and ${t.agentId} is null
        when 'agent' then ${t.agentId} is not null and ${t.key} ~ ${sql.raw(`'${FACT_KEY_PATTERN}'`)}
        else ${t.key} ~ ${sql.raw(`'${EVOLUTION_KEY_PATTERN}'`)} and split_part(${t.key}, '.', 2) = ${t.agentId}
      end`,
    ),
    // One live fact per key and agent; superseded rows are its history.
    uniqueIndex('popagent_memories_live_key_idx')
      .on(t.owner, t.agentId, t.key)
      .where(sql`${t.supersededAt} is null and ${t.key} is not null`),
    index('popagent_memories_list_idx').on(t.owner, t.createdAt),
    index('popagent_memories_session_idx').on(t.sessionId),
  ],
)
