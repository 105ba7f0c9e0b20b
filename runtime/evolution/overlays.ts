import { asc, eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { learnedOverlays } from '../../db/schema/index.ts'
import { LEARNED_HEADING } from './catalog.ts'

export type ActiveOverlay = {
  agentId: string
  catalogId: string
  text: string
  headRevisionId: string
}

// About 1,500 tokens: learned guidance never crowds out the owner's instructions.
const OVERLAY_CHARS = 6_000

/** Every agent's active learned overlays, oldest first (the configuration cache keeps them). */
export async function activeOverlays(db: Db): Promise<ActiveOverlay[]> {
  return db
    .select({
      agentId: learnedOverlays.agentId,
      catalogId: learnedOverlays.catalogId,
      text: learnedOverlays.text,
      headRevisionId: learnedOverlays.headRevisionId,
    })
    .from(learnedOverlays)
    .where(eq(learnedOverlays.state, 'active'))
    .orderBy(asc(learnedOverlays.createdAt), asc(learnedOverlays.id))
}

/**
 * The owner's instructions, unchanged, then the agent's learned guidance under a heading that
 * ranks it below them, each line tagged with the revision that wrote it. Overlays past the
 * character bound are left out rather than cut.
 */
export function composeInstructions(base: string, overlays: readonly ActiveOverlay[]): string {
  if (overlays.length === 0) return base
  const lines: string[] = []
  let used = 0
  for (const o of overlays) {
    const line = `- [rev:${o.headRevisionId}] ${o.text}`
    if (used + line.length > OVERLAY_CHARS) break
    lines.push(line)
    used += line.length
  }
  return `${base}\n\n${LEARNED_HEADING}\n${lines.join('\n')}`
}
