import * as Channels from '../../runtime/channels/index.ts'
import type { ChannelRow } from '../../runtime/channels/index.ts'
import type { Vault } from '../secrets/vault.ts'
import type { Db } from '../../db/index.ts'
import { buildAdapter } from './adapters/index.ts'
import { scaledLimits } from './pacing.ts'
import type { ChannelAdapter } from './types.ts'

/**
 * A channel's row and its adapter, built with the secrets the vault reveals for it. Kept per
 * channel while the row's `updated_at` stands (any owner's edit moves it), so an inbound event
 * or an outbox send costs one small read, not a decryption per secret.
 */
export type OpenChannel = { row: ChannelRow; adapter: ChannelAdapter }

export function createChannelDirectory(deps: { db: Db; vault: Vault; paceScale?: number }) {
  const open = new Map<string, OpenChannel>()
  return {
    /** The channel, or undefined when it does not exist. */
    async get(id: string): Promise<OpenChannel | undefined> {
      const row = await Channels.rowOf(deps.db, id)
      if (!row) {
        open.delete(id)
        return undefined
      }
      const kept = open.get(id)
      if (kept && kept.row.updatedAt.getTime() === row.updatedAt.getTime()) {
        kept.row = row
        return kept
      }
      const secrets: Record<string, string[]> = {}
      for (const [role, ids] of Object.entries(row.secretIds)) {
        secrets[role] = await Promise.all(ids.map((secretId) => deps.vault.reveal(secretId)))
      }
      const built = buildAdapter(row.kind, row.settings, secrets)
      const limits = scaledLimits(built.limits, deps.paceScale ?? 1)
      const channel = { row, adapter: limits === built.limits ? built : { ...built, limits } }
      open.set(id, channel)
      return channel
    },
  }
}
export type ChannelDirectory = ReturnType<typeof createChannelDirectory>
