/**
 * The host log's level (POPAGENT_LOG_LEVEL): lines below it are dropped before they are built,
 * children keep their parent's level, and the environment accepts only the four levels.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseHostEnv } from '../compute-host/env.ts'
import { createLogger, type LogLevel } from '../compute-host/log.ts'

function captured(level?: LogLevel) {
  const lines: { level: string; message: string }[] = []
  const log = createLogger({
    secrets: ['s3cr3t-value-0123456789'],
    write: (line) => void lines.push(JSON.parse(line)),
    ...(level && { level }),
  })
  return { log, lines }
}

test('info is the default: debug lines are dropped before their fields are even read', () => {
  const { log, lines } = captured()
  let serialized = 0
  const fields = { detail: { toJSON: () => (serialized++, 'x') } }
  log.debug('tool not available for this run', fields)
  log.child({ runId: 'run_1' }).debug('tool call ended', fields)
  assert.equal(serialized, 0)
  log.info('run started', fields)
  assert.equal(serialized, 1)
  assert.deepEqual(
    lines.map((l) => `${l.level} ${l.message}`),
    ['info run started'],
  )
})

test('debug keeps every line, still redacted; warn keeps only problems, in children too', () => {
  const all = captured('debug')
  all.log.debug('tool call ended', { note: 'with s3cr3t-value-0123456789' })
  assert.equal(all.lines.length, 1)
  assert.ok(!JSON.stringify(all.lines).includes('s3cr3t-value-0123456789'))

  const quiet = captured('warn')
  const child = quiet.log.child({ component: 'recall' })
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    quiet.log[level](`${level} line`)
    child[level](`${level} child line`)
  }
  assert.deepEqual(
    quiet.lines.map((l) => l.message),
    ['warn line', 'warn child line', 'error line', 'error child line'],
  )
})

test('POPAGENT_LOG_LEVEL defaults to info and refuses anything but the four levels', () => {
  assert.equal(parseHostEnv({}).POPAGENT_LOG_LEVEL, 'info')
  assert.equal(parseHostEnv({ POPAGENT_LOG_LEVEL: 'debug' }).POPAGENT_LOG_LEVEL, 'debug')
  assert.throws(() => parseHostEnv({ POPAGENT_LOG_LEVEL: 'verbose' }), /POPAGENT_LOG_LEVEL/)
})
