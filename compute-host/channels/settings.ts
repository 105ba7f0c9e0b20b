import { randomBytes } from 'node:crypto'
import { eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { DEFAULT_WORKSPACE_ID } from '../../db/data-migrations/0002-register-default-workspace.ts'
import { channels } from '../../db/schema/index.ts'
import * as Channels from '../../runtime/channels/index.ts'
import { ChannelInvalid, ChannelNotFound } from '../../runtime/channels/errors.ts'
import type {
  ChannelView,
  CreateChannelInput,
  UpdateChannelInput,
} from '../../runtime/contracts/channels.ts'
import { createId } from '../../runtime/ids.ts'
import { PG_FOREIGN_KEY_VIOLATION, pgErrorCode } from '../../runtime/pg-errors.ts'
import { WorkspaceNotFound } from '../../runtime/sessions/errors.ts'
import type { Vault } from '../secrets/vault.ts'
import { BUILT_KINDS, settingsSchema } from './adapters/index.ts'

/**
 * The owner's writes to channels, on the host because secrets go to the vault: each value given
 * is stored as a vault secret (encrypted, and redacted from every log line and payload from
 * then on) named `CHANNEL_<id>_<ROLE>_<random>`, and the row keeps only their ids. A replaced or
 * deleted channel's secrets leave the vault with it.
 */
type Deps = { db: Db; vault: Vault }

// A random suffix: a role replaced twice in one second still gets a fresh, unique name.
const secretName = (channelId: string, role: string) =>
  `CHANNEL_${channelId}_${role.replace(/[^A-Za-z0-9]/g, '').toUpperCase()}_${randomBytes(4).toString('hex')}`

async function storeSecrets(
  { vault }: Deps,
  channelId: string,
  given: Record<string, string | string[] | undefined>,
): Promise<Record<string, string[]>> {
  const stored: Record<string, string[]> = {}
  try {
    for (const [role, value] of Object.entries(given)) {
      if (value === undefined) continue
      const values = Array.isArray(value) ? value : [value]
      stored[role] = []
      for (const value of values) {
        const name = secretName(channelId, role)
        stored[role].push((await vault.create({ name, value })).id)
      }
    }
    return stored
  } catch (error) {
    await removeSecrets({ vault }, stored)
    throw error
  }
}

async function removeSecrets({ vault }: Pick<Deps, 'vault'>, ids: Record<string, string[]>) {
  for (const list of Object.values(ids)) {
    for (const id of list) await vault.remove(id).catch(() => {})
  }
}

export async function createChannel(deps: Deps, input: CreateChannelInput): Promise<ChannelView> {
  if (!BUILT_KINDS.includes(input.kind)) {
    throw new ChannelInvalid(
      { kind: input.kind },
      { message: `the ${input.kind} channel is not built yet` },
    )
  }
  const id = createId('channel')
  const secretIds = await storeSecrets(deps, id, input.secrets)
  const workspaceId = input.workspaceId ?? DEFAULT_WORKSPACE_ID
  try {
    const [row] = await deps.db
      .insert(channels)
      .values({
        id,
        kind: input.kind,
        name: input.name,
        enabled: input.enabled ?? true,
        workspaceId,
        model: input.model ?? null,
        settings: input.settings,
        allowedSenders: input.allowedSenders,
        secretIds,
        state: 'ok',
      })
      .returning()
    return Channels.toView(row!)
  } catch (error) {
    await removeSecrets(deps, secretIds)
    if (pgErrorCode(error) === PG_FOREIGN_KEY_VIOLATION)
      throw new WorkspaceNotFound({ workspaceId })
    throw error
  }
}

export async function updateChannel(
  deps: Deps,
  id: string,
  input: UpdateChannelInput,
): Promise<ChannelView> {
  const row = await Channels.rowOf(deps.db, id)
  if (!row) throw new ChannelNotFound({ id })
  let settings = row.settings
  if (input.settings) {
    const parsed = settingsSchema(row.kind)!.safeParse({ ...row.settings, ...input.settings })
    if (!parsed.success) {
      throw new ChannelInvalid({ issues: parsed.error.issues.map((i) => i.message) })
    }
    settings = parsed.data as Record<string, unknown>
  }
  const known = new Set(Object.keys(row.secretIds))
  for (const role of Object.keys(input.secrets ?? {})) {
    if (!known.has(role) && !(row.kind === 'telegram' && role === 'webhookSecret')) {
      throw new ChannelInvalid({ role }, { message: `a ${row.kind} channel has no secret ${role}` })
    }
  }
  const replaced = input.secrets ? await storeSecrets(deps, id, input.secrets) : {}
  const secretIds = { ...row.secretIds, ...replaced }
  const [updated] = await deps.db
    .update(channels)
    .set({
      ...(input.name !== undefined && { name: input.name }),
      ...(input.enabled !== undefined && { enabled: input.enabled }),
      ...(input.model !== undefined && { model: input.model }),
      ...(input.allowedSenders !== undefined && { allowedSenders: input.allowedSenders }),
      settings,
      secretIds,
      state: 'ok',
      lastError: null,
      updatedAt: new Date(),
    })
    .where(eq(channels.id, id))
    .returning()
  // The old values of a replaced role leave the vault once the row no longer names them.
  await removeSecrets(
    deps,
    Object.fromEntries(Object.keys(replaced).map((role) => [role, row.secretIds[role] ?? []])),
  )
  return Channels.toView(updated!)
}

export async function deleteChannel(deps: Deps, id: string): Promise<void> {
  const [row] = await deps.db.delete(channels).where(eq(channels.id, id)).returning()
  if (!row) throw new ChannelNotFound({ id })
  await removeSecrets(deps, row.secretIds)
}

/** Health: a channel that failed to send or poll says why, until it works again. */
export async function markChannel(db: Db, id: string, error: string | null): Promise<void> {
  await db
    .update(channels)
    .set({ state: error ? 'error' : 'ok', lastError: error })
    .where(eq(channels.id, id))
}
