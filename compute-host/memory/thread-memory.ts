import { Memory } from '@mastra/memory'
import { PostgresStore } from '@mastra/pg'
import pg from 'pg'
import type { MemorySettings } from '../../runtime/contracts/settings.ts'
import type { DatabaseHandle } from '../database/handle.ts'
import type { GatewayModels } from '../models/gateway-models.ts'
import { memoryOptions } from './observational-options.ts'

/** Every chat thread belongs to the one owner. */
export const MEMORY_RESOURCE_ID = 'popagent-user'

/**
 * Mastra memory in the application database (tables in the `mastra` schema): one thread per
 * session. Mastra builds its Observational Memory engine once per `Memory` instance, so a
 * settings change needs a new instance; the newest one is kept and reused while the settings
 * are unchanged. A run that started on older settings keeps its own instance to the end.
 */
export function createThreadMemory(options: { handle: DatabaseHandle; models: GatewayModels }) {
  const pool = new pg.Pool(options.handle.pgPoolConfig())
  // A client losing its server (a PostgreSQL restart) emits 'error'; unhandled, that kills the
  // host. The query in flight is rejected either way, and the pool reconnects on the next one.
  const ignore = () => {}
  pool.on('error', ignore)
  pool.on('connect', (client) => client.on('error', ignore))
  const storage = new PostgresStore({ id: 'popagent', pool, schemaName: 'mastra' })
  let current: { key: string; memory: Memory } | undefined
  const plain = new Memory({ storage })

  return {
    /** Creates Mastra's tables when missing. Run once at start, before the first turn. */
    init: () => storage.init(),
    forSettings(settings: MemorySettings): Memory {
      const { updatedAt: _updatedAt, ...values } = settings
      const key = JSON.stringify(values)
      if (current?.key !== key) {
        current = {
          key,
          memory: new Memory({ storage, options: memoryOptions(settings, options.models) }),
        }
      }
      return current.memory
    },
    /**
     * Removes a session's thread and its messages, and the threads Mastra opened for the
     * specialists it delegated to in that session (`<session>-<uuid>` under
     * `popagent-user-<agent>`). A thread that never existed is fine.
     */
    async deleteThreads(threadIds: readonly string[], agentIds: readonly string[]): Promise<void> {
      for (const id of await this.threadIds(threadIds, agentIds)) await plain.deleteThread(id)
    },
    /**
     * The sessions' own threads and their specialists' threads that exist. Each specialist's
     * threads are listed once for the whole set, not once per session.
     */
    async threadIds(threadIds: readonly string[], agentIds: readonly string[]): Promise<string[]> {
      const ids: string[] = []
      for (const threadId of threadIds) {
        if (await plain.getThreadById({ threadId })) ids.push(threadId)
      }
      if (threadIds.length === 0) return ids
      // A specialist thread is `<session thread>-<uuid>`; a UUID is 36 characters.
      const owner = (id: string) =>
        id.length > 37 && id[id.length - 37] === '-' ? id.slice(0, -37) : ''
      const wanted = new Set(threadIds)
      for (const agentId of agentIds) {
        const { threads } = await plain.listThreads({
          filter: { resourceId: `${MEMORY_RESOURCE_ID}-${agentId}` },
          perPage: false,
        })
        for (const t of threads) if (wanted.has(owner(t.id))) ids.push(t.id)
      }
      return ids
    },
    /**
     * Removes exchanges the owner took out of a session's transcript from its thread too: each
     * named user message and every message after it up to the next user message that stays (the
     * reply, its tool calls and results). Mastra keeps the user message's id as the client sent
     * it, which is the transcript's id. A specialist's own thread is left: the supervisor does not
     * read it, and a later delegation starts a new one. What observational memory already
     * summarised from the exchange stays in its observations.
     */
    async forgetExchanges(threadId: string, userMessageIds: readonly string[]): Promise<number> {
      if (!(await plain.getThreadById({ threadId }))) return 0
      const store = await storage.getStore('memory')
      if (!store) throw new Error('the memory store is not available')
      const { messages } = await store.listMessages({ threadId, perPage: false })
      const removed = new Set(userMessageIds)
      const ordered = [...messages].sort(
        (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id),
      )
      const doomed: string[] = []
      let dropping = false
      for (const message of ordered) {
        if (message.role === 'user') dropping = removed.has(message.id)
        if (dropping) doomed.push(message.id)
      }
      if (doomed.length) await plain.deleteMessages(doomed)
      return doomed.length
    },
    /** Messages Mastra holds for a thread; 0 when there is no such thread. */
    async countMessages(threadId: string): Promise<number> {
      if (!(await plain.getThreadById({ threadId }))) return 0
      const { messages } = await plain.recall({ threadId, resourceId: MEMORY_RESOURCE_ID })
      return messages.length
    },
    async close(): Promise<void> {
      await current?.memory.settled()
      await pool.end()
    },
  }
}

export type ThreadMemory = ReturnType<typeof createThreadMemory>
