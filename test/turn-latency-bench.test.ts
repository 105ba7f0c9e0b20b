/**
 * The turn-latency bench's own arithmetic: storage time counted once where calls overlap, and a
 * recorded model request split into the parts its prompt tokens are reported by.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { promptSize } from '../bench/turn-latency.ts'
import { storageWithin } from '../bench/turn-latency-storage.ts'

test('storage time in a window counts overlapping calls once and clips at the window', () => {
  const calls = [
    { name: 'MemoryPG.getThreadById', start: 10, end: 14 },
    { name: 'MemoryPG.listMessages', start: 12, end: 16 }, // overlaps the first
    { name: 'MemoryPG.saveThread', start: 20, end: 40 }, // runs past the window
    { name: 'MemoryPG.getThreadById', start: 5, end: 11 }, // began before the window
  ]
  const within = storageWithin(calls, 10, 30)
  assert.equal(within.count, 3)
  assert.equal(within.busyMs, 6 + 10)
  assert.deepEqual(within.byName, {
    'MemoryPG.getThreadById': 1,
    'MemoryPG.listMessages': 1,
    'MemoryPG.saveThread': 1,
  })
})

test('a recorded request is split into instructions, inherited instructions, brief, skills, tools and messages', () => {
  const own = '# Researcher\n\nYou read code.'
  const supervisor = '# Orchestrator\n\nYou delegate.'
  const body = {
    messages: [
      { role: 'system', content: own },
      { role: 'system', content: supervisor },
      { role: 'system', content: 'A repository brief was prepared for this request: …' },
      { role: 'system', content: '<available_skills></available_skills>' },
      { role: 'system', content: 'Local filesystem at "/w". Relative paths resolve from it.' },
      { role: 'system', content: 'Something else.' },
      { role: 'user', content: 'hello' },
    ],
    tools: [{ type: 'function', function: { name: 'recall', parameters: {} } }],
  }
  const size = promptSize('researcher', body, own, supervisor)
  assert.equal(size.chars.instructions, own.length)
  assert.equal(size.chars.supervisor, supervisor.length)
  assert.equal(size.chars.brief, body.messages[2]!.content.length)
  assert.equal(size.chars.skills, body.messages[3]!.content.length)
  assert.equal(size.chars.workspace, body.messages[4]!.content.length)
  assert.equal(size.chars.otherSystem, 'Something else.'.length)
  assert.equal(size.chars.messages, JSON.stringify(body.messages[6]).length)
  assert.equal(size.chars.tools, JSON.stringify(body.tools).length)
  assert.equal(size.tools, 1)
  assert.deepEqual(Object.keys(size.toolChars), ['recall'])
  const total = Object.values(size.chars).reduce((a, b) => a + b, 0)
  assert.equal(size.tokens, Math.ceil(total / 4))
})
