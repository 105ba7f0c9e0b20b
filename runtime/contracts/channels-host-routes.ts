import { z } from 'zod'
import {
  ChannelBindingId,
  ChannelCancelled,
  ChannelId,
  ChannelPosted,
  ChannelPostInput,
  ChannelView,
  CreateChannelInput,
  InboundAccepted,
  InboundParams,
  MAX_INBOUND_BYTES,
  UpdateChannelInput,
} from './channels.ts'
import type { HostRoute } from './host-api.ts'

/**
 * An inbound event as the edge received it: the channel it names, the headers a channel reads,
 * and the body's exact bytes (base64: a signature is over bytes, which a JSON string could not
 * carry unchanged). The host verifies before it parses.
 */
export const ChannelInboundBody = z.strictObject({
  id: InboundParams.shape.id,
  headers: z.record(z.string().max(100), z.string().max(2_000)),
  body: z.base64().max(Math.ceil(MAX_INBOUND_BYTES / 3) * 4),
})
export const ChannelRefBody = z.strictObject({ id: ChannelId })
export const ChannelUpdateBody = z.strictObject({ id: ChannelId, change: UpdateChannelInput })
export const ChannelPostBody = ChannelPostInput.extend({ id: ChannelId })
export const ChannelCancelBody = z.strictObject({ id: ChannelId, bindingId: ChannelBindingId })
export const ChannelSetupBody = z.strictObject({ id: ChannelId, inboundUrl: z.url().max(2_000) })

/**
 * The host endpoints behind /api/channels: secrets live in the host's vault, and turns and the
 * outbox run there. Spread into `hostRoutes` (host-api.ts).
 */
export const channelHostRoutes = {
  channelInbound: {
    method: 'POST',
    path: '/internal/channels/inbound',
    input: ChannelInboundBody,
    output: InboundAccepted,
    timeoutMs: 30_000,
    does: 'accept the channel event',
  },
  channelCreate: {
    method: 'POST',
    path: '/internal/channels/create',
    input: CreateChannelInput,
    output: ChannelView,
    timeoutMs: 30_000,
    does: 'create the channel',
  },
  channelUpdate: {
    method: 'POST',
    path: '/internal/channels/update',
    input: ChannelUpdateBody,
    output: ChannelView,
    timeoutMs: 30_000,
    does: 'update the channel',
  },
  channelDelete: {
    method: 'POST',
    path: '/internal/channels/delete',
    input: ChannelRefBody,
    output: z.object({ deleted: z.string() }),
    timeoutMs: 30_000,
    does: 'delete the channel',
  },
  channelPost: {
    method: 'POST',
    path: '/internal/channels/post',
    input: ChannelPostBody,
    output: ChannelPosted,
    timeoutMs: 30_000,
    does: 'queue the message',
  },
  channelCancel: {
    method: 'POST',
    path: '/internal/channels/cancel',
    input: ChannelCancelBody,
    output: ChannelCancelled,
    timeoutMs: 10_000,
    does: "cancel the conversation's turn and unsent chunks",
  },
  channelSetup: {
    method: 'POST',
    path: '/internal/channels/setup',
    input: ChannelSetupBody,
    output: z.object({ registered: z.boolean() }),
    timeoutMs: 30_000,
    does: 'register the channel with its service',
  },
} as const satisfies Record<string, HostRoute>
