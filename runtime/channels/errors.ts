import { AppError } from '../errors.ts'

export const ChannelNotFound = AppError.define('CHANNEL_NOT_FOUND', 404, 'channel not found')
export const ChannelInvalid = AppError.define('CHANNEL_INVALID', 400, 'invalid channel settings')
export const BindingNotFound = AppError.define(
  'CHANNEL_BINDING_NOT_FOUND',
  404,
  'channel binding not found',
)
/** A binding named for task results whose recipient blocked the bot: nothing can reach it. */
export const BindingBlocked = AppError.define(
  'CHANNEL_BINDING_BLOCKED',
  409,
  'the channel binding is blocked by its recipient',
)
/**
 * An inbound event that did not prove where it came from: a bad or missing signature, a stale
 * timestamp, an unknown or disabled channel. One code and one message for all of them, so a
 * prober learns nothing about which channels exist.
 */
export const InboundUnauthorized = AppError.define(
  'UNAUTHORIZED',
  401,
  'the event is not signed by this channel',
)
