import { sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/rows.ts'
import type { RecallKind } from '../../db/memory-enums.ts'
import type { Candidate } from './candidates.ts'
import { STOPWORDS } from './stopwords.ts'
import { distance, literal } from './vector-index.ts'

const LEG_LIMIT = 50
const VECTOR_LIMIT = 40

type Raw = {
  id: string
  kind: RecallKind
  content: string
  session_id: string | null
  session_title: string | null
  memory_id: string | null
  turn_id: string | null
  created_at: Date | string
  cosine?: number | string
}

const toCandidate = (r: Raw): Candidate => ({
  id: r.id,
  kind: r.kind,
  content: r.content,
  sessionId: r.session_id,
  sessionTitle: r.session_title,
  memoryId: r.memory_id,
  turnId: r.turn_id,
  createdAt: new Date(r.created_at),
})

// Items of the run's own session are left out: its thread memory already holds them.
const notSession = (sessionId: string | undefined) =>
  sessionId ? sql`(i.session_id is null or i.session_id <> ${sessionId})` : sql`true`

/**
 * The full-text leg: the question's words (the same 'simple' lexemes the items are indexed
 * with, common words dropped) OR-ed, ranked by cover density normalised to [0, 1).
 */
export async function searchText(
  db: Db,
  query: string,
  excludeSession?: string,
): Promise<Candidate[]> {
  const result = await db.execute(sql`
    with words as (
      select l from unnest(tsvector_to_array(to_tsvector('simple', ${query}))) l
      where length(l) >= 3 and l ~ '^[[:alnum:]_./-]+$'
        and not (l = any(${sql.raw(`array[${STOPWORDS.map((w) => `'${w}'`).join(',')}]`)}))
    ), q as (
      select case when count(*) = 0 then null
        else to_tsquery('simple', string_agg(quote_literal(l), ' | ')) end as q
      from words
    )
    select i.id, i.kind, i.content, i.session_id, s.title as session_title, i.memory_id,
      i.turn_id, i.created_at
    from q, popagent_recall_items i
    left join popagent_sessions s on s.id = i.session_id
    where q.q is not null and i.tsv @@ q.q and ${notSession(excludeSession)}
    order by ts_rank_cd(i.tsv, q.q, 32) desc, i.id
    limit ${LEG_LIMIT}`)
  return rowsOf<Raw>(result).map((r, at) => ({ ...toCandidate(r), ftsRank: at + 1 }))
}

/** The vector leg: nearest items by cosine distance among those embedded with the same model. */
export async function searchVector(
  db: Db,
  vector: readonly number[],
  model: string,
  excludeSession?: string,
): Promise<Candidate[]> {
  const d = distance(model, vector)
  // HNSW yields at most hnsw.ef_search rows (40 by default); asking for no more keeps this one
  // statement, where raising it would take a transaction and three more round trips.
  const result = await db.execute(sql`
    with near as (
      select v.item_id, ${d} as distance
      from popagent_recall_vectors v
      join popagent_recall_items i on i.id = v.item_id
      where v.model = ${literal(model)} and ${notSession(excludeSession)}
      order by ${d}
      limit ${VECTOR_LIMIT}
    )
    select i.id, i.kind, i.content, i.session_id, s.title as session_title, i.memory_id,
      i.turn_id, i.created_at, 1 - near.distance as cosine
    from near
    join popagent_recall_items i on i.id = near.item_id
    left join popagent_sessions s on s.id = i.session_id
    order by near.distance, i.id`)
  return rowsOf<Raw>(result).map((r, at) => ({
    ...toCandidate(r),
    vectorRank: at + 1,
    cosine: Number(r.cosine),
  }))
}

/** Whether this database has the vector table (migration 0010 made it only with pgvector). */
export async function hasVectorTable(db: Db): Promise<boolean> {
  const result = await db.execute(
    sql`select to_regclass('popagent_recall_vectors') is not null as present`,
  )
  return rowsOf<{ present: boolean }>(result)[0]?.present === true
}
