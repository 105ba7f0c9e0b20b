/**
 * A turn read as steps, without a browser (ui/src/chat/steps.ts): labels, the context steps, a
 * hook's deny with the hook's reason, a running delegation's current action, indented JSON and
 * durations; and which repository a new chat goes to (repo-choice.ts).
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { AgentActivity } from '../runtime/contracts/chat.ts'
import { ACTIVITY, type ActivityPart } from '../ui/src/chat/reducer.ts'
import { repositoryForNewChat } from '../ui/src/chat/repo-choice.ts'
import { elapsed, pretty, stepsOf, stepTime, workingOn } from '../ui/src/chat/steps.ts'

const item = (id: string, data: Partial<AgentActivity>): ActivityPart => ({
  type: ACTIVITY,
  id,
  data: {
    kind: 'tool',
    agentId: 'orchistrator',
    agentName: 'Orchestrator',
    status: 'completed',
    startedAt: '2026-12-05T10:00:00.000Z',
    ...data,
  },
})

describe('chat steps', () => {
  test('recall and the repository brief are context steps; tools and delegations are not', () => {
    const steps = stepsOf([
      item('a', { tool: 'repo-brief', input: 'q' }),
      item('b', { tool: 'recall' }),
      item('c', { tool: 'workspace-read' }),
      item('d', { kind: 'delegation', agentId: 'researcher', agentName: 'Researcher' }),
    ])
    assert.deepEqual(
      steps.map((s) => [s.context, s.action]),
      [
        [true, 'read the repository brief'],
        [true, 'recalled memory'],
        [false, 'workspace-read'],
        [false, 'delegated task'],
      ],
    )
  })

  test('a hook’s deny is a deny with the hook’s reason, not the text written for the model', () => {
    const [step] = stepsOf([
      item('g', {
        kind: 'guard',
        tool: 'hook',
        input: 'shell',
        status: 'failed',
        error:
          'Denied by policy (a PreToolUse hook): no shell on Fridays. This decision is final: do not retry this call; continue without it or explain why you cannot.',
      }),
    ])
    assert.equal(step!.state, 'denied')
    assert.equal(step!.action, 'hook denied shell')
    assert.equal(step!.denyReason, 'no shell on Fridays')
    // The refused call itself reads as denied too, with the same reason.
    const [call] = stepsOf([
      item('c', {
        tool: 'shell',
        status: 'failed',
        error:
          'Denied by policy (a PreToolUse hook): no shell on Fridays. This decision is final: …',
      }),
    ])
    assert.equal(call!.state, 'denied')
    assert.equal(call!.denyReason, 'no shell on Fridays')
    // Another guard keeps its own wording.
    const [budget] = stepsOf([item('b', { kind: 'guard', tool: 'budget', status: 'failed' })])
    assert.equal(budget!.state, 'failed')
    assert.equal(budget!.denyReason, undefined)
  })

  test('a running delegation names what its specialist does now', () => {
    const items = [
      item('d', {
        kind: 'delegation',
        agentId: 'researcher',
        agentName: 'Researcher',
        status: 'running',
      }),
      item('t1', { agentId: 'researcher', agentName: 'Researcher', tool: 'skill_search' }),
      item('t2', {
        agentId: 'researcher',
        agentName: 'Researcher',
        tool: 'workspace-read',
        status: 'running',
      }),
    ]
    const steps = stepsOf(items)
    assert.equal(steps[0]!.current, 'workspace-read')
    assert.equal(workingOn(steps, false), 'Researcher: workspace-read')
    assert.equal(workingOn([], true), 'Writing the answer')
    assert.equal(workingOn([], false), 'Thinking')
  })

  test('arguments are indented JSON; other or cut text stays as sent', () => {
    assert.equal(
      pretty('{"path":"a.ts","n":[1,2]}'),
      '{\n  "path": "a.ts",\n  "n": [\n    1,\n    2\n  ]\n}',
    )
    assert.equal(pretty('{"path":"a.ts… [truncated]'), '{"path":"a.ts… [truncated]')
    assert.equal(pretty('Find the parser bug'), 'Find the parser bug')
  })

  test('times: an ended step its duration, a running one the time since it started', () => {
    assert.equal(elapsed(850), '850 ms')
    assert.equal(elapsed(4_240), '4.2 s')
    assert.equal(elapsed(125_000), '2 min 05 s')
    const started = Date.parse('2026-12-05T10:00:00.000Z')
    const running = item('r', { status: 'running' }).data
    assert.equal(stepTime(running, started + 3_000), 3_000)
    assert.equal(stepTime({ ...running, durationMs: 42 }, started + 3_000), 42)
    // A client clock behind the host's never shows a negative time.
    assert.equal(stepTime(running, started - 500), 0)
  })
})

describe('the repository of a new chat', () => {
  const registered = [{ id: 'wsp_a' }, { id: 'wsp_b' }]
  test('the first preference still registered, else the first registered', () => {
    assert.equal(repositoryForNewChat(registered, undefined, '', 'wsp_b'), 'wsp_b')
    assert.equal(repositoryForNewChat(registered, 'wsp_a', 'wsp_b'), 'wsp_a')
    assert.equal(repositoryForNewChat(registered, 'wsp_gone'), 'wsp_a')
    assert.equal(repositoryForNewChat([], 'wsp_a'), undefined)
  })
})
