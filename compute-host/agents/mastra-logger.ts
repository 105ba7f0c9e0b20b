import { MastraLogger } from '@mastra/core/logger'
import type { Logger } from '../log.ts'

/**
 * Mastra's internal log lines, routed into the host's redacting JSON log instead of Mastra's
 * console logger. Only the message and an error's name, status and message are kept: Mastra
 * attaches whole provider requests (prompts, tool payloads) to its errors, and those stay out
 * of the log.
 */
export class HostMastraLogger extends MastraLogger {
  readonly #log: Logger

  constructor(log: Logger) {
    super({ name: 'mastra', level: 'warn' })
    this.#log = log
  }

  debug(): void {}
  info(): void {}
  warn(message: string, ...args: unknown[]): void {
    this.#log.warn(message, { source: 'mastra', ...summarise(args) })
  }
  error(message: string, ...args: unknown[]): void {
    this.#log.error(message, { source: 'mastra', ...summarise(args) })
  }
}

function summarise(args: unknown[]): Record<string, unknown> {
  for (const arg of args) {
    const candidate = (arg as { error?: unknown })?.error ?? arg
    if (candidate instanceof Error) {
      const e = candidate as Error & { statusCode?: number }
      return {
        errorName: e.name,
        errorMessage: e.message.slice(0, 500),
        ...(e.statusCode !== undefined && { statusCode: e.statusCode }),
      }
    }
  }
  return {}
}
