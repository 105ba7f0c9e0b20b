import { query, revalidate } from '@solidjs/router'
import type { z } from 'zod'
import type { CreateChannelInput, UpdateChannelInput } from '../../../runtime/contracts/channels.ts'
import { api, ok } from '../api.ts'

/** The owner's channels (secrets shown only as counts). */
export const getChannels = query(() => ok(api.channels.$get()), 'channels')

/** A channel's newest events and outbox chunks, for its detail row. */
export const getChannelHistory = query(async (id: string) => {
  const [events, outbox] = await Promise.all([
    ok(api.channels[':id'].events.$get({ param: { id }, query: { limit: '20' } })),
    ok(api.channels[':id'].outbox.$get({ param: { id }, query: { limit: '20' } })),
  ])
  return { events: events.events, chunks: outbox.chunks }
}, 'channel-history')

const changed = () => revalidate(getChannels.key)

export async function createChannel(json: z.input<typeof CreateChannelInput>) {
  const created = await ok(api.channels.$post({ json }))
  await changed()
  return created
}

export async function updateChannel(id: string, json: UpdateChannelInput) {
  const updated = await ok(api.channels[':id'].$patch({ param: { id }, json }))
  await changed()
  return updated
}

export async function deleteChannel(id: string) {
  await ok(api.channels[':id'].$delete({ param: { id } }))
  await changed()
}
