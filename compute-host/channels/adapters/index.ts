import { z } from 'zod'
import type { ChannelKind } from '../../../runtime/contracts/channels.ts'
import {
  SlackSettings,
  TelegramSettings,
  WebhookSettings,
} from '../../../runtime/contracts/channels.ts'
import type { ChannelAdapter } from '../types.ts'
import { createSlackAdapter } from './slack.ts'
import { createTelegramAdapter } from './telegram.ts'
import { createWebhookAdapter } from './webhook.ts'

/**
 * Every channel kind's adapter, by kind: adding a channel is its adapter file, its line here and
 * its settings and secrets in runtime/contracts/channels.ts. `secrets` holds each role's values
 * as the vault revealed them, for this adapter only.
 */
type Build = (settings: unknown, secrets: Record<string, string[]>) => ChannelAdapter

const SETTINGS: Partial<Record<ChannelKind, z.ZodType>> = {
  webhook: WebhookSettings,
  telegram: TelegramSettings,
  slack: SlackSettings,
}

const BUILDERS: Partial<Record<ChannelKind, Build>> = {
  webhook: (settings, secrets) =>
    createWebhookAdapter({
      settings: settings as z.output<typeof WebhookSettings>,
      secrets: { signing: secrets.signing ?? [], outbound: secrets.outbound ?? [] },
    }),
  telegram: (settings, secrets) =>
    createTelegramAdapter({
      settings: settings as z.output<typeof TelegramSettings>,
      secrets: {
        botToken: secrets.botToken ?? [],
        ...(secrets.webhookSecret && { webhookSecret: secrets.webhookSecret }),
      },
    }),
  slack: (settings, secrets) =>
    createSlackAdapter({
      settings: settings as z.output<typeof SlackSettings>,
      secrets: { botToken: secrets.botToken ?? [], signingSecret: secrets.signingSecret ?? [] },
    }),
}

/** The kinds this host can run. */
export const BUILT_KINDS = Object.keys(BUILDERS) as ChannelKind[]

/** The settings schema of a kind (a merged update is checked against it). */
export function settingsSchema(kind: ChannelKind): z.ZodType | undefined {
  return SETTINGS[kind]
}

export function buildAdapter(
  kind: ChannelKind,
  settings: unknown,
  secrets: Record<string, string[]>,
): ChannelAdapter {
  const build = BUILDERS[kind]
  const schema = SETTINGS[kind]
  if (!build || !schema) throw new Error(`the ${kind} channel is not built on this host`)
  return build(schema.parse(settings), secrets)
}
