import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../pg-errors.ts'
import { DocSlugTaken } from './errors.ts'

/** Runs a write; a unique violation (one slug per workspace) is said as DOC_SLUG_TAKEN. */
export async function slugged<T>(slug: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new DocSlugTaken({ slug })
    throw error
  }
}
