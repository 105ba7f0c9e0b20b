import { and, desc, eq, inArray, sql } from '../../db/drizzle-orm.ts'
import type { FailureClass, SignalKind, SignalStatus } from '../../db/evolution-enums.ts'
import type { Db } from '../../db/index.ts'
import { evolutionSignals } from '../../db/schema/index.ts'
import type { EvolutionSignal } from '../contracts/evolution.ts'
import { createId } from '../ids.ts'
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../pg-errors.ts'
import { SignalNotActionable, SignalNotFound } from './errors.ts'
import { evidenceText, fingerprint } from './evidence.ts'
import { recordRunFailure } from './runs.ts'

type SignalRow = typeof evolutionSignals.$inferSelect

// Trace ids kept per open signal: enough to count distinct runs, bounded for a noisy failure.
const TRACES_KEPT = 20

export type SignalInput = {
  agentId: string
  kind: SignalKind
  failureClass: FailureClass
  /** The real trace of the run the evidence comes from; a signal without one is refused. */
  traceId: string
  sessionId?: string | null
  goal: string
  result: { failure: string } | { outcome: string }
  /** What makes two signals the same failure (the task's prompt, the tool, the message). */
  subject: string
}

export const MissingTrace = new Error('an evolution signal needs the trace id of its run')

/**
 * Records a signal, or counts it on the open one with the same fingerprint (kind, agent, class,
 * normalised subject): one row per failure pattern while it waits, with every distinct trace it
 * was seen in. The evidence is redacted with the host's one redactor before it is stored. The run
 * it is about is marked failed with its class (runs.ts), for measuring learned changes.
 */
export async function recordSignal(
  db: Db,
  input: SignalInput,
  redact: (text: string) => string,
): Promise<{ id: string; occurrences: number }> {
  if (!input.traceId.trim()) throw MissingTrace
  const evidence = evidenceText(input.goal, input.result, redact)
  const print = await fingerprint(input)
  const [row] = await db
    .insert(evolutionSignals)
    .values({
      id: createId('evolutionSignal'),
      agentId: input.agentId,
      kind: input.kind,
      failureClass: input.failureClass,
      fingerprint: print,
      traceId: input.traceId,
      traceIds: [input.traceId],
      sessionId: input.sessionId ?? null,
      evidence,
    })
    .onConflictDoUpdate({
      target: evolutionSignals.fingerprint,
      targetWhere: sql`${evolutionSignals.status} in ('pending', 'claimed')`,
      set: {
        // The same trace reported twice is one occurrence.
        occurrences: sql`${evolutionSignals.occurrences} + (case when ${input.traceId} = any(${evolutionSignals.traceIds}) then 0 else 1 end)`,
        traceIds: sql`case when ${input.traceId} = any(${evolutionSignals.traceIds}) then ${evolutionSignals.traceIds} else (${evolutionSignals.traceIds} || array[${input.traceId}::text])[greatest(1, cardinality(${evolutionSignals.traceIds}) + 2 - ${TRACES_KEPT}):] end`,
        evidence,
        updatedAt: sql`now()`,
      },
    })
    .returning({ id: evolutionSignals.id, occurrences: evolutionSignals.occurrences })
  // The run it is about counts as failed with this class when changes are measured.
  await recordRunFailure(db, input.traceId, input.agentId, input.failureClass)
  return row!
}

export function toSignal(row: SignalRow): EvolutionSignal {
  return {
    id: row.id,
    agentId: row.agentId,
    kind: row.kind,
    failureClass: row.failureClass,
    traceId: row.traceId,
    traceIds: row.traceIds,
    sessionId: row.sessionId,
    evidence: row.evidence,
    occurrences: row.occurrences,
    status: row.status,
    attempts: row.attempts,
    lastError: row.lastError,
    outcome: row.outcome,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

/** The newest signals first, optionally of one status. */
export async function list(
  db: Db,
  query: { status?: SignalStatus; limit?: number } = {},
): Promise<EvolutionSignal[]> {
  const rows = await db
    .select()
    .from(evolutionSignals)
    .where(query.status ? eq(evolutionSignals.status, query.status) : undefined)
    .orderBy(desc(evolutionSignals.createdAt), desc(evolutionSignals.id))
    .limit(query.limit ?? 50)
  return rows.map(toSignal)
}

/** The owner sets a waiting or dead signal aside: the worker will not reflect on it. */
export async function ignore(db: Db, id: string): Promise<EvolutionSignal> {
  return transition(db, id, ['pending', 'dead'], {
    status: 'ignored',
    outcome: 'ignored by the owner',
  })
}

/** A dead signal goes back to the worker from attempt zero. */
export async function retry(db: Db, id: string): Promise<EvolutionSignal> {
  try {
    return await transition(db, id, ['dead'], {
      status: 'pending',
      attempts: 0,
      lastError: null,
      nextAttemptAt: sql`now()` as unknown as Date,
    })
  } catch (error) {
    // The same failure came again meanwhile: its open signal is the one the worker will read.
    if (pgErrorCode(error) !== PG_UNIQUE_VIOLATION) throw error
    throw new SignalNotActionable(
      { id },
      { message: 'the same failure has an open signal already; the worker will read that one' },
    )
  }
}

async function transition(
  db: Db,
  id: string,
  from: SignalStatus[],
  set: Partial<SignalRow>,
): Promise<EvolutionSignal> {
  const [row] = await db
    .update(evolutionSignals)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(evolutionSignals.id, id), inArray(evolutionSignals.status, from)))
    .returning()
  if (row) return toSignal(row)
  const [exists] = await db
    .select({ status: evolutionSignals.status })
    .from(evolutionSignals)
    .where(eq(evolutionSignals.id, id))
  if (!exists) throw new SignalNotFound({ id })
  throw new SignalNotActionable(
    { id, status: exists.status },
    {
      message: `the signal is ${exists.status}; this applies only to ${from.join(' or ')} signals`,
    },
  )
}
