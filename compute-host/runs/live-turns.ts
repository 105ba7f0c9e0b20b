import type { UIMessageChunk } from 'ai'
import type { Db } from '../../db/index.ts'
import type { UiMessage } from '../../runtime/contracts/sessions.ts'
import {
  HostStopping,
  SessionArchived,
  SessionNotFound,
  TurnInProgress,
  WorkspaceMismatch,
} from '../../runtime/sessions/errors.ts'
import {
  beatLiveTurns,
  claimLiveTurn,
  recoverLiveTurns,
  releaseLiveTurn,
  type ClaimedSession,
} from '../../runtime/sessions/live-turns.ts'
import type { Logger } from '../log.ts'
import type { KeptChunkLimits } from './kept-chunks.ts'
import { createTurnStream, type TurnStream } from './turn-stream.ts'

/** Why a live turn's run was aborted: the owner's stop, the host stopping, or its mark lost. */
export type StopReason = 'stop' | 'shutdown' | 'lost'

/** A turn this host runs: its own abort (no client's connection ends it) and its stream. */
type LiveTurn = {
  sessionId: string
  turnId: string
  controller: AbortController
  stream: TurnStream
  /** Settles when the turn's stream has ended (its messages are saved by then). */
  done: Promise<void>
}

/** What the chat driver holds of a turn it claimed. */
export type ClaimedTurn = {
  /** The session as the claim found it (open, of the workspace the claim named). */
  session: ClaimedSession
  /** The run's signal: aborted only by a stop, the host stopping, or the turn's mark lost. */
  signal: AbortSignal
  /**
   * Hands the turn's UI-message stream over: it is read to its end, whoever listens. Answers the
   * stream as server-sent events for the client that started the turn.
   */
  publish(stream: ReadableStream<UIMessageChunk>): ReadableStream<Uint8Array>
  /** The turn failed before it had a stream: its mark goes, nothing is saved. */
  release(): Promise<void>
}

const LEASE_MS = 30_000
const STOP_WAIT_MS = 10_000

/**
 * The chat turns this host runs. A turn runs under its own AbortController, not the request that
 * started it: closing or reloading the page leaves it running, and any client joins it (`join`)
 * from its start or from the last chunk it received. Only `stop` (the owner's Stop, from any
 * client), the host stopping, or the loss of its mark ends a turn early.
 *
 * Each turn also has a row in `popagent_live_turns` (runtime/sessions/live-turns.ts), claimed
 * before it starts (so a session runs one turn at a time, across hosts: a second is a 409) and
 * cleared when its messages are saved. Recovery of the rows no host runs any more:
 *
 * - at start, this host closes the rows it owned (`host`, its hostname and port: a restarted
 *   host is the same address, and a row of its own it is not running was interrupted), and on
 *   the embedded database every row (only one process can open it);
 * - every host renews its rows' `heartbeat_at` three times a lease and, once a lease, closes
 *   any host's rows not renewed for a lease: a host that never came back (or came back at
 *   another address) has its turns closed within two leases.
 *
 * Closing a row appends the user's message and an assistant message saying a restart
 * interrupted the turn. A row found gone at a heartbeat (recovered elsewhere while this host was
 * cut off, or its session deleted) aborts its run, whose end then saves nothing.
 */
export function createLiveTurns(deps: {
  db: Db
  log: Logger
  host: string
  /** Every row at start is an orphan (the embedded database: one process at a time). */
  ownsEveryRow?: boolean
  leaseMs?: number
  limits?: KeptChunkLimits
}) {
  const { db, log, host } = deps
  const leaseMs = deps.leaseMs ?? LEASE_MS
  const turns = new Map<string, LiveTurn>()
  let closing = false
  let timers: ReturnType<typeof setInterval>[] = []

  const running = () => [...turns.values()].map((t) => t.turnId)

  async function beat() {
    const held = running()
    if (held.length === 0) return
    try {
      const kept = new Set(await beatLiveTurns(db, host, held))
      for (const turn of turns.values()) {
        if (held.includes(turn.turnId) && !kept.has(turn.turnId)) {
          log.warn('live turn lost its mark; stopping it', { turnId: turn.turnId })
          turn.controller.abort('lost' satisfies StopReason)
        }
      }
    } catch (error) {
      log.error('live turn heartbeat failed', { error })
    }
  }

  async function recover(atStart: boolean) {
    try {
      // At start nothing runs here yet; later, only rows past the lease are anyone's to close.
      const recovered = await recoverLiveTurns(db, {
        ...(atStart && { hostRows: host, everyRow: deps.ownsEveryRow ?? false }),
        running: running(),
        leaseMs,
      })
      for (const turn of recovered) log.warn('interrupted turn closed', turn)
    } catch (error) {
      log.error('live turn recovery failed', { error })
    }
  }

  return {
    /** Closes the turns this host left behind, then keeps its own marks fresh. */
    async start(): Promise<void> {
      await recover(true)
      timers = [
        setInterval(() => void beat(), Math.max(50, Math.floor(leaseMs / 3))),
        setInterval(() => void recover(false), leaseMs),
      ]
      for (const timer of timers) timer.unref?.()
    },

    /**
     * Claims `sessionId` for a new turn, in one statement that also reads the session: the
     * session's refusals first (missing, archived, not `workspaceId`'s when given), then
     * TURN_IN_PROGRESS (409) when a turn runs there already, on this host or another, or when
     * the claim was refused otherwise (`vaultKnown` out of date: claim-redacted.ts). `message` is
     * the user's, kept with the mark until the turn is saved.
     */
    async claim(turn: {
      sessionId: string
      turnId: string
      message: UiMessage
      workspaceId?: string
      vaultKnown?: ReadonlyMap<string, number>
    }) {
      if (closing) throw new HostStopping()
      const refused = () => new TurnInProgress({ sessionId: turn.sessionId })
      if (turns.has(turn.sessionId)) throw refused()
      const { claimed: made, session } = await claimLiveTurn(db, { ...turn, host })
      // The session's own refusals come before a running turn's.
      if (!session) throw new SessionNotFound({ id: turn.sessionId })
      if (session.archived) throw new SessionArchived({ id: turn.sessionId })
      if (turn.workspaceId !== undefined && session.workspaceId !== turn.workspaceId) {
        throw new WorkspaceMismatch({ sessionId: turn.sessionId, workspaceId: turn.workspaceId })
      }
      if (!made) throw refused()
      let settle!: () => void
      const live: LiveTurn = {
        ...turn,
        controller: new AbortController(),
        stream: createTurnStream(deps.limits ? { limits: deps.limits } : {}),
        done: new Promise<void>((resolve) => (settle = resolve)),
      }
      turns.set(turn.sessionId, live)
      const forget = () => {
        if (turns.get(turn.sessionId) === live) turns.delete(turn.sessionId)
        live.stream.end()
        settle()
      }
      const claimed: ClaimedTurn = {
        session,
        signal: live.controller.signal,
        publish(stream) {
          const answer = live.stream.join(0)
          void pump(stream, live.stream, log).finally(forget)
          return answer
        },
        async release() {
          forget()
          await releaseLiveTurn(db, turn).catch((error: unknown) =>
            log.error('could not clear a live turn', { turnId: turn.turnId, error }),
          )
        },
      }
      return claimed
    },

    /** The live turn of a session as SSE, after chunk `after`; undefined when none runs here. */
    join(sessionId: string, after: number): ReadableStream<Uint8Array> | undefined {
      const turn = turns.get(sessionId)
      return turn && !turn.stream.ended ? turn.stream.join(after) : undefined
    },

    /** Stops the session's turn; answers its id, or undefined when none runs here. */
    stop(sessionId: string): string | undefined {
      const turn = turns.get(sessionId)
      turn?.controller.abort('stop' satisfies StopReason)
      return turn?.turnId
    },

    /** Stops these sessions' turns and waits until each has ended (a session being deleted). */
    async stopAndWait(sessionIds: string[]): Promise<void> {
      const stopping = sessionIds.flatMap((id) => {
        const turn = turns.get(id)
        turn?.controller.abort('stop' satisfies StopReason)
        return turn ? [turn.done] : []
      })
      await Promise.all(stopping)
    },

    /** The turn running in a session here (tests and the bench read its kept chunks). */
    get: (sessionId: string) => turns.get(sessionId),

    /**
     * The host is stopping: new turns are refused, running ones end as interrupted by the
     * restart (their partial answers saved), waited for up to STOP_WAIT_MS.
     */
    async close(): Promise<void> {
      closing = true
      for (const timer of timers) clearInterval(timer)
      const ending = [...turns.values()].map((turn) => {
        turn.controller.abort('shutdown' satisfies StopReason)
        return turn.done
      })
      let timeout: ReturnType<typeof setTimeout> | undefined
      await Promise.race([
        Promise.all(ending),
        new Promise((resolve) => (timeout = setTimeout(resolve, STOP_WAIT_MS))),
      ])
      clearTimeout(timeout)
    },
  }
}
export type LiveTurns = ReturnType<typeof createLiveTurns>

/** Reads a turn's stream to its end into its live stream, whoever is listening. */
async function pump(
  source: ReadableStream<UIMessageChunk>,
  target: TurnStream,
  log: Logger,
): Promise<void> {
  const reader = source.getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      target.push(value)
    }
  } catch (error) {
    log.warn('live turn stream failed', { error })
  }
}
