import { sql, type SQL } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'

/**
 * The vector column has no fixed dimension (a model change is a re-embed, not a migration), so
 * each model gets its own HNSW index over `embedding::vector(<dims>)`, partial on that model.
 * The query must name the same expression and the model as a literal for the planner to use it.
 */
export const literal = (text: string) => sql.raw(`'${text.replace(/'/g, "''")}'`)

export function distance(model: string, vector: readonly number[]): SQL {
  const dims = sql.raw(String(vector.length))
  // Inlined, not a parameter: the same text appears twice (select and order by) and the planner
  // sees a constant it can drive the index with.
  const value = sql.raw(`'[${vector.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}]'`)
  return sql`(v.embedding::vector(${dims})) <=> ${value}::vector(${dims})`
}

const made = new Set<string>()

/** Creates the model's index once (per host, and `if not exists` across hosts). */
export async function ensureVectorIndex(db: Db, model: string, dims: number) {
  const key = `${model}\u0000${dims}`
  if (made.has(key)) return
  let hash = 2166136261
  for (const c of key) hash = Math.imul(hash ^ c.charCodeAt(0), 16777619)
  const name = sql.raw(`popagent_recall_vectors_hnsw_${dims}_${(hash >>> 0).toString(16)}`)
  await db.execute(sql`
    create index if not exists ${name} on popagent_recall_vectors
    using hnsw ((embedding::vector(${sql.raw(String(dims))})) vector_cosine_ops)
    where model = ${literal(model)}`)
  made.add(key)
}
