import { createSecretRedactor, type Redactor } from '../runtime/redaction.ts'
import { loggableError } from '../runtime/pg-errors.ts'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type Logger = {
  [L in LogLevel]: (message: string, fields?: Record<string, unknown>) => void
} & { child: (fields: Record<string, unknown>) => Logger }

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const satisfies LogLevel[]

/**
 * JSON-lines logger. Every line passes through the redactor (the host's own, or one built from
 * the given secrets), so a key that ends up in an error message never reaches the log. Lines
 * below `level` (default `info`, POPAGENT_LOG_LEVEL on a host) are dropped before they are built:
 * a turn's debug lines (a tool an agent cannot have here, each tool call's end) were two dozen
 * JSON lines, each redacted and written, on every turn.
 */
export function createLogger(options: {
  secrets?: ReadonlyArray<string | undefined>
  redactor?: Redactor
  write?: (line: string) => void
  base?: Record<string, unknown>
  level?: LogLevel
}): Logger {
  const redactor = options.redactor ?? createSecretRedactor(options.secrets)
  const redact = (text: string) => redactor.redact(text)
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`))
  const lowest = LOG_LEVELS.indexOf(options.level ?? 'info')
  const dropped = () => {}
  const make = (base: Record<string, unknown>): Logger => {
    const emit = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
      const line = JSON.stringify(
        { time: new Date().toISOString(), level, message, ...base, ...fields },
        errorReplacer,
      )
      write(redact(line))
    }
    const at = (level: LogLevel) => (LOG_LEVELS.indexOf(level) < lowest ? dropped : emit(level))
    return {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      child: (fields) => make({ ...base, ...fields }),
    }
  }
  return make(options.base ?? {})
}

// Database errors keep their SQLSTATE and driver message only: drizzle's own message quotes the
// statement's parameters, which may hold anything a user sent.
function errorReplacer(_key: string, value: unknown) {
  return value instanceof Error ? loggableError(value) : value
}
