import type { HostHandlers } from '../host-routes.ts'
import type { HostResources } from '../resources.ts'
import { createChannel, deleteChannel, updateChannel } from './settings.ts'

type ChannelHandlers = Pick<
  HostHandlers,
  | 'channelInbound'
  | 'channelCreate'
  | 'channelUpdate'
  | 'channelDelete'
  | 'channelPost'
  | 'channelCancel'
  | 'channelSetup'
>

/** The host's channel routes (runtime/contracts/channels-host-routes.ts) over its resources. */
export function channelHandlers($: HostResources): ChannelHandlers {
  const deps = { db: $.databases.application.db, vault: $.vault }
  return {
    channelInbound: ({ id, headers, body }) =>
      $.channels.service.inbound(id, headers, new Uint8Array(Buffer.from(body, 'base64'))),
    channelCreate: (input) => createChannel(deps, input),
    channelUpdate: ({ id, change }) => updateChannel(deps, id, change),
    channelDelete: async ({ id }) => {
      await deleteChannel(deps, id)
      return { deleted: id }
    },
    channelPost: ({ id, ...message }) => $.channels.service.post(id, message),
    channelCancel: ({ id, bindingId }) => $.channels.service.cancel(id, bindingId),
    channelSetup: ({ id, inboundUrl }) => $.channels.service.setup(id, inboundUrl),
  }
}
