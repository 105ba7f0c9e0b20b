import { customType } from '../drizzle-pg-core.ts'

/** A PostgreSQL `tsvector` column (drizzle has no built-in type for it). */
export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })

/**
 * The options of a full-text GIN index: every insert goes into the index itself. With
 * PostgreSQL's default (fastupdate on) new rows wait in the index's pending list until a vacuum,
 * and every search scans that list in full and the planner, costing it, gives the index up for a
 * sequential scan: after indexing 10,500 documentation chunks, a search took 18 ms instead of
 * 0.2 ms until autovacuum came by. Chunks and recall items are written by background work, which
 * can pay the slower insert.
 */
export const GIN_DIRECT_UPDATES = { fastupdate: false } as const
