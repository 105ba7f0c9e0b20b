/**
 * How the chat learns that a finished turn is saved, without a browser: a saved turn's stream
 * names the revision, so one read of the session answers; a stopped or failed turn names none,
 * so the session is read until it holds the user's message.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { settleTurn, type SavedSession } from '../ui/src/chat/settle.ts'

/** A session that holds the user's message from the `savedAt`-th read on. */
function sessionReads(savedAt: number) {
  let reads = 0
  const fetchSession = async (): Promise<SavedSession> => {
    reads++
    return reads >= savedAt
      ? { revision: 4, messages: [{ id: 'msg_user' }, { id: 'msg_reply' }] }
      : { revision: 2, messages: [] }
  }
  return { fetchSession, reads: () => reads }
}
const noWait = async () => {}

describe('settleTurn', () => {
  test('with the saved revision, one read of the session answers', async () => {
    const host = sessionReads(1)
    const saved = await settleTurn({
      savedRevision: 4,
      userMessageId: 'msg_user',
      fetchSession: host.fetchSession,
      sleep: noWait,
    })
    assert.equal(saved?.revision, 4)
    assert.equal(host.reads(), 1)
  })

  test('with the saved revision, a session older than it is not taken for the saved one', async () => {
    const host = sessionReads(2)
    const saved = await settleTurn({
      savedRevision: 4,
      userMessageId: 'msg_user',
      fetchSession: host.fetchSession,
      sleep: noWait,
    })
    assert.equal(saved, undefined)
    assert.equal(host.reads(), 1, 'no polling when the host said what it saved')
  })

  test('without one (a stopped or failed turn), the session is read until it holds the message', async () => {
    const host = sessionReads(3)
    const saved = await settleTurn({
      savedRevision: undefined,
      userMessageId: 'msg_user',
      fetchSession: host.fetchSession,
      sleep: noWait,
    })
    assert.deepEqual(
      saved?.messages.map((m) => m.id),
      ['msg_user', 'msg_reply'],
    )
    assert.equal(host.reads(), 3)
  })

  test('the fallback gives up after its attempts, and a failing read counts as one', async () => {
    let reads = 0
    const saved = await settleTurn({
      savedRevision: undefined,
      userMessageId: 'msg_user',
      fetchSession: async () => {
        reads++
        throw new Error('unreachable')
      },
      sleep: noWait,
      attempts: 5,
    })
    assert.equal(saved, undefined)
    assert.equal(reads, 5)
  })
})
