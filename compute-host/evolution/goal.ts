import { and, desc, eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { sessionMessages, tasks } from '../../db/schema/index.ts'

/** A task's prompt: the goal of every signal from its runs. */
export async function taskGoal(db: Db, taskId: string): Promise<string | undefined> {
  const [row] = await db.select({ prompt: tasks.prompt }).from(tasks).where(eq(tasks.id, taskId))
  return row?.prompt
}

/** The newest `count` user messages of a session, newest first, as text. */
export async function userMessages(db: Db, sessionId: string, count: number): Promise<string[]> {
  const rows = await db
    .select({ message: sessionMessages.message })
    .from(sessionMessages)
    .where(
      and(
        eq(sessionMessages.sessionId, sessionId),
        sql`${sessionMessages.message}->>'role' = 'user'`,
      ),
    )
    .orderBy(desc(sessionMessages.position))
    .limit(count)
  return rows.map((row) => {
    const parts = (row.message as { parts?: Array<{ type?: string; text?: string }> }).parts
    return (parts ?? [])
      .filter((p) => p.type === 'text' && typeof p.text === 'string')
      .map((p) => p.text)
      .join(' ')
  })
}

/** The newest user message of a session, as text: the goal of a chat turn's signal. */
export async function sessionGoal(db: Db, sessionId: string): Promise<string | undefined> {
  const [text] = await userMessages(db, sessionId, 1)
  return text || undefined
}

/**
 * How a user's next message reads when it corrects the answer before it: a plain "no", "wrong",
 * "that's not what I asked". Deliberately narrow: a follow-up question is not a correction.
 */
const CORRECTION =
  /^\s*(no\b|nope\b|wrong\b|incorrect\b|that'?s (not|wrong|incorrect)\b|that is (not|wrong|incorrect)\b|not what i (asked|meant|wanted)\b|you (misunderstood|got it wrong)\b)/i

/** Whether a message's text starts as a correction does (the cheap check before any read). */
export const readsAsCorrection = (text: string) => CORRECTION.test(text)

/**
 * A chat turn that corrects the one before it (read after the turn is saved): the earlier
 * request is the goal, the correction what came of the answer.
 */
export async function correctionOf(
  db: Db,
  sessionId: string,
): Promise<{ goal: string; correction: string } | undefined> {
  const [latest, previous] = await userMessages(db, sessionId, 2)
  if (!latest || !previous || !readsAsCorrection(latest)) return undefined
  return { goal: previous, correction: latest }
}
