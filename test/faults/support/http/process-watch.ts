/**
 * What a fault test watches besides the answers: unhandled rejections and uncaught exceptions in
 * this process (the edge and the compute host both run in it), and every line written to stderr,
 * where the edge's console logger and the host's default logger write.
 */
import { inspect } from 'node:util'

export type ProcessWatch = {
  unhandled: { kind: 'unhandledRejection' | 'uncaughtException'; error: string }[]
  /** Every stderr line written while watching (not passed on, to keep the test output legible). */
  stderrLines: string[]
  /** What went to console.log/info/debug (stdout) while watching, with `captureConsole`. */
  consoleLines: string[]
  /** The stderr lines and host log records at error level. */
  errorLines(hostLogs?: Record<string, unknown>[]): string[]
  stop(): void
}

export function watchProcess(
  options: { passStderr?: boolean; captureConsole?: boolean } = {},
): ProcessWatch {
  const unhandled: ProcessWatch['unhandled'] = []
  const onRejection = (error: unknown) =>
    void unhandled.push({ kind: 'unhandledRejection', error: describe(error) })
  const onException = (error: unknown) =>
    void unhandled.push({ kind: 'uncaughtException', error: describe(error) })
  process.on('unhandledRejection', onRejection)
  process.on('uncaughtException', onException)

  const stderrLines: string[] = []
  const original = process.stderr.write.bind(process.stderr)
  let pending = ''
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
    const lines = pending.split('\n')
    pending = lines.pop()!
    stderrLines.push(...lines)
    if (options.passStderr) return (original as (...a: unknown[]) => boolean)(chunk, ...rest)
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined
    callback?.()
    return true
  }) as typeof process.stderr.write

  // stdout itself carries the test runner's protocol, so only the console methods are captured.
  const consoleLines: string[] = []
  const consoleOriginals = { log: console.log, info: console.info, debug: console.debug }
  if (options.captureConsole) {
    for (const name of ['log', 'info', 'debug'] as const) {
      console[name] = (...args: unknown[]) =>
        void consoleLines.push(args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' '))
    }
  }

  return {
    unhandled,
    stderrLines,
    consoleLines,
    errorLines(hostLogs = []) {
      const fromStderr = stderrLines.filter((l) => /"level"\s*:\s*"error"/.test(l))
      const fromHost = hostLogs.filter((r) => r.level === 'error').map((r) => JSON.stringify(r))
      return [...fromStderr, ...fromHost]
    },
    stop() {
      if (pending) stderrLines.push(pending)
      pending = ''
      process.stderr.write = original
      Object.assign(console, consoleOriginals)
      process.off('unhandledRejection', onRejection)
      process.off('uncaughtException', onException)
    },
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error)
}
