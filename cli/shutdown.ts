/**
 * Runs `stop` once on SIGTERM or SIGINT and exits 0 when it finished (1 if it failed). A second
 * signal while stopping exits at once.
 */
import { errorMessage } from '../runtime/error-message.ts'

export function onShutdown(stop: () => Promise<void>, say: (line: string) => void = console.error) {
  let stopping = false
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1)
    stopping = true
    say(`popagent: ${signal} received, shutting down`)
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        say(`popagent: shutdown failed: ${errorMessage(error)}`)
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', handler)
  process.on('SIGINT', handler)
}
