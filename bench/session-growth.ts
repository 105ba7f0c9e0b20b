/**
 * What a chat turn pays on its session as the session grows. A turn reads its session before the
 * model call (is it there, archived, in this workspace, is this its first turn) and appends its
 * two messages after the answer. Until migration 0018 the messages were one jsonb array on the
 * session row, tool outputs and activity included, so both costs grew with every turn: at 100
 * coding turns (2 MB) the read took 48–56 ms and the append, which rewrote the array, 65–125 ms.
 *
 * On one session, grown turn by turn with generated turns of about 20 KB (a question; an answer
 * with text, four file reads and two specialist summaries, as a coding turn stores them), at each
 * checkpoint:
 * - the read the turn makes (`Sessions.getSummary`: no messages), alternating in each round with
 * - the whole session (`Sessions.get`, what the session page loads), its baseline;
 * - the last (up to five) appends that grew the session to the checkpoint (`Sessions.appendTurn`).
 * The goals: neither the read before the model call nor the append grows with the session (at the
 * last checkpoint ≤ 1.5× a one-turn session's).
 */
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import type { UiMessage } from '../runtime/contracts/sessions.ts'
import * as Sessions from '../runtime/sessions/index.ts'
import { seededRandom } from '../test/support/seeded-random.ts'
import { benchDatabase } from './database.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { median } from './stats.ts'

const WORDS = 'the parser router cache token session ledger returns calls when each file test build'
  .split(' ')
  .concat(['invoice', 'schedule', 'upload', 'search', 'render', 'billing', 'handler', 'config'])

export async function benchSessionGrowth(mode: BenchMode): Promise<BenchResult[]> {
  const checkpoints = mode.quick ? [1, 10] : [1, 25, 50, 100]
  const rounds = mode.quick ? 5 : 30
  const random = seededRandom(18)
  const text = (chars: number) => {
    let out = ''
    while (out.length < chars) out += `${WORDS[Math.floor(random() * WORDS.length)]} `
    return out.slice(0, chars)
  }
  const turn = (n: number): UiMessage[] =>
    [
      { id: `msg_u${n}`, role: 'user', parts: [{ type: 'text', text: text(200) }] },
      {
        id: `msg_a${n}`,
        role: 'assistant',
        parts: [
          { type: 'text', text: text(1_500) },
          ...[0, 1, 2, 3].map((k) => ({
            type: 'tool-workspace-read',
            toolCallId: `call_${n}_${k}`,
            state: 'output-available',
            input: { path: `src/${text(12).trim()}.ts` },
            output: { content: text(3_000) },
          })),
          ...[0, 1].map((k) => ({
            type: 'data-agentActivity',
            id: `act_${n}_${k}`,
            data: { kind: 'delegation', status: 'done', input: text(1_000), output: text(2_000) },
          })),
        ],
      },
    ] as UiMessage[]

  const database = await benchDatabase()
  const handle = openNodePostgres(database.url, { max: 2 })
  const db = handle.db
  const timed = async (fn: () => Promise<unknown>) => {
    const began = performance.now()
    await fn()
    return performance.now() - began
  }
  try {
    // A first session takes the connection's and the planner's first-time costs.
    const warm = await Sessions.create(db, {})
    for (let n = 0; n < 3; n++) await Sessions.appendTurn(db, warm.id, turn(-1 - n))
    await Sessions.get(db, warm.id)
    await Sessions.getSummary(db, warm.id)
    const session = await Sessions.create(db, {})
    let turns = 0
    const rows: { turns: number; summary: number; whole: number; append: number; kb: number }[] = []
    for (const checkpoint of checkpoints) {
      // The session grows to the checkpoint; its last appends (up to five) are timed.
      const append: number[] = []
      while (turns < checkpoint) {
        const append1 = () => Sessions.appendTurn(db, session.id, turn(turns++))
        if (checkpoint - turns <= 5) append.push(await timed(append1))
        else await append1()
      }
      const summary: number[] = []
      const whole: number[] = []
      for (let round = 0; round < rounds; round++) {
        const ours = () => Sessions.getSummary(db, session.id)
        const theirs = () => Sessions.get(db, session.id)
        // Alternate which goes first, so neither always meets a warm cache.
        if (round % 2) {
          summary.push(await timed(ours))
          whole.push(await timed(theirs))
        } else {
          whole.push(await timed(theirs))
          summary.push(await timed(ours))
        }
      }
      const stored = await Sessions.get(db, session.id)
      const kb = Buffer.byteLength(JSON.stringify(stored?.messages ?? [])) / 1024
      rows.push({
        turns: checkpoint,
        summary: median(summary),
        whole: median(whole),
        append: median(append),
        kb,
      })
    }
    const first = rows[0]!
    const last = rows.at(-1)!
    const readGrowth = last.summary / first.summary
    const appendGrowth = last.append / first.append
    const table = rows
      .map(
        (r) =>
          `${r.turns} turns (${Math.round(r.kb)} KB of messages): read ${r.summary.toFixed(2)} ms, whole session ${r.whole.toFixed(2)} ms, append ${r.append.toFixed(2)} ms`,
      )
      .join('; ')
    console.error(`session growth: ${table}`)
    return [
      {
        name: `turn's session read, ${last.turns} turns / 1 turn`,
        goal: '≤ 1.5×',
        ratio: readGrowth,
        met: readGrowth <= 1.5,
        detail: table,
      },
      {
        name: `turn's append, ${last.turns} turns / 1 turn`,
        goal: '≤ 1.5×',
        ratio: appendGrowth,
        met: appendGrowth <= 1.5,
        detail: `${first.append.toFixed(2)} ms at 1 turn, ${last.append.toFixed(2)} ms at ${last.turns}`,
      },
      {
        name: `whole session, ${last.turns} turns, vs turn's read`,
        goal: 'reported',
        ratio: last.whole / last.summary,
        met: true,
        detail: `whole session ${last.whole.toFixed(2)} ms, turn's read ${last.summary.toFixed(2)} ms`,
      },
    ]
  } finally {
    await handle.close()
    await database.drop()
  }
}
