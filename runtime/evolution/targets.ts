import { and, eq, isNull } from '../../db/drizzle-orm.ts'
import type { RevisionTarget } from '../../db/evolution-enums.ts'
import type { Db } from '../../db/index.ts'
import { agentSkills, learnedOverlays, memories } from '../../db/schema/index.ts'
import { createId } from '../ids.ts'
import * as Memories from '../memories/index.ts'
import { stableJson } from '../stable-json.ts'
import { sha256Hex } from '../docs/sha256.ts'
import { ProposalRefused } from './errors.ts'
import type { Tx } from './policy.ts'

/**
 * The three things evolution may change, each read and written as a full snapshot so that a
 * revision holds the whole package before and after, and a revert can put the "before" back.
 * `null` is "not there". Keys: an overlay `<agent>/<catalog id>`, a skill `<agent>/<name>`, a fact
 * its memory key `evolution.<agent>.<key>`.
 */
export type Snapshot = Record<string, unknown> | null
export type Target = { kind: RevisionTarget; agentId: string; key: string }

export const overlayKey = (agentId: string, catalogId: string) => `${agentId}/${catalogId}`
export const skillKey = (agentId: string, name: string) => `${agentId}/${name}`
export const factKey = (agentId: string, key: string) => `evolution.${agentId}.${key}`

const nameOf = (target: Target) => target.key.slice(target.agentId.length + 1)

/** The hash a revision records of what it wrote; a revert compares the target's current one. */
export const snapshotHash = (snapshot: Snapshot) => sha256Hex(stableJson(snapshot))

export async function readTarget(tx: Tx, target: Target): Promise<Snapshot> {
  if (target.kind === 'overlay') {
    const [row] = await tx
      .select()
      .from(learnedOverlays)
      .where(
        and(
          eq(learnedOverlays.agentId, target.agentId),
          eq(learnedOverlays.catalogId, nameOf(target)),
        ),
      )
      .for('update')
    return row ? { catalogId: row.catalogId, text: row.text, state: row.state } : null
  }
  if (target.kind === 'skill') {
    const [row] = await tx
      .select()
      .from(agentSkills)
      .where(and(eq(agentSkills.agentId, target.agentId), eq(agentSkills.name, nameOf(target))))
      .for('update')
    return row
      ? {
          name: row.name,
          description: row.description,
          instructions: row.instructions,
          enabled: row.enabled,
          evolutionManaged: row.evolutionManaged,
        }
      : null
  }
  const [row] = await tx
    .select()
    .from(memories)
    .where(
      and(
        eq(memories.owner, 'evolution'),
        eq(memories.agentId, target.agentId),
        eq(memories.key, target.key),
        isNull(memories.supersededAt),
      ),
    )
    .for('update')
  return row ? { content: row.content } : null
}

/**
 * Writes `snapshot` to the target and returns what is there afterwards. A skill the owner made
 * or edited (not `evolution_managed`) is never written: the whole change fails. A skill is never
 * deleted: "not there" becomes disabled.
 */
export async function writeTarget(
  tx: Tx,
  target: Target,
  snapshot: Snapshot,
  revisionId: string,
  provenance: { sessionId?: string | null } = {},
): Promise<Snapshot> {
  if (target.kind === 'overlay') {
    const catalogId = nameOf(target)
    const where = and(
      eq(learnedOverlays.agentId, target.agentId),
      eq(learnedOverlays.catalogId, catalogId),
    )
    if (!snapshot) {
      await tx.delete(learnedOverlays).where(where)
      return null
    }
    const values = {
      text: String(snapshot.text),
      state: snapshot.state === 'retired' ? ('retired' as const) : ('active' as const),
      headRevisionId: revisionId,
    }
    await tx
      .insert(learnedOverlays)
      .values({ id: createId('learnedOverlay'), agentId: target.agentId, catalogId, ...values })
      .onConflictDoUpdate({
        target: [learnedOverlays.agentId, learnedOverlays.catalogId],
        set: { ...values, updatedAt: new Date() },
      })
    return readTarget(tx, target)
  }
  if (target.kind === 'skill') {
    const current = await readTarget(tx, target)
    if (current && current.evolutionManaged !== true) {
      throw new ProposalRefused(
        { target: target.key },
        { message: `the skill ${target.key} is the owner's; evolution never changes it` },
      )
    }
    const name = nameOf(target)
    const where = and(eq(agentSkills.agentId, target.agentId), eq(agentSkills.name, name))
    if (!snapshot) {
      if (current)
        await tx.update(agentSkills).set({ enabled: false, updatedAt: new Date() }).where(where)
      return readTarget(tx, target)
    }
    const values = {
      description: String(snapshot.description),
      instructions: String(snapshot.instructions),
      enabled: snapshot.enabled !== false,
    }
    if (current)
      await tx
        .update(agentSkills)
        .set({ ...values, updatedAt: new Date() })
        .where(where)
    else
      await tx.insert(agentSkills).values({
        id: createId('skill'),
        agentId: target.agentId,
        name,
        ...values,
        references: {},
        evolutionManaged: true,
      })
    return readTarget(tx, target)
  }
  const db = tx as unknown as Db
  const semanticKey = target.key.slice(`evolution.${target.agentId}.`.length)
  if (!snapshot) {
    const [live] = await tx
      .select({ id: memories.id })
      .from(memories)
      .where(
        and(
          eq(memories.owner, 'evolution'),
          eq(memories.agentId, target.agentId),
          eq(memories.key, target.key),
          isNull(memories.supersededAt),
        ),
      )
    if (live) await Memories.remove(db, live.id, 'evolution')
    return null
  }
  await Memories.retainFact(db, {
    owner: 'evolution',
    agentId: target.agentId,
    key: semanticKey,
    content: String(snapshot.content),
    provenance: { sessionId: provenance.sessionId ?? null },
  })
  return readTarget(tx, target)
}
