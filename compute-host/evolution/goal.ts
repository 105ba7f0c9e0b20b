import { and, desc, eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { sessionMessages, tasks } from '../../db/schema/index.ts'

/** A task's prompt: the goal of every signal from its runs. */
export async function taskGoal(db: Db, taskId: string): Promise<string | undefined> {
  const [row] = await db.select({ prompt: tasks.prompt }).from(tasks).where(eq(tasks.id, taskId))
  return row?.prompt
}

/** The newest user message of a session, as text: the goal of a chat turn's signal. */
export async function sessionGoal(db: Db, sessionId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ message: sessionMessages.message })
    .from(sessionMessages)
    .where(
      and(
        eq(sessionMessages.sessionId, sessionId),
        sql`${sessionMessages.message}->>'role' = 'user'`,
      ),
    )
    .orderBy(desc(sessionMessages.position))
    .limit(1)
  const parts = (row?.message as { parts?: Array<{ type?: string; text?: string }> } | undefined)
    ?.parts
  const text = parts
    ?.filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join(' ')
  return text || undefined
}
