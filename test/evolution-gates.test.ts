/**
 * Reflection's gates (compute-host/evolution/gates.ts), without a database: what the model
 * answers is only a proposal. Evidence outside the batch, low confidence, one run of evidence, a
 * switch that is off: no action. A fact with a secret in it, or a key naming the owner's
 * boundaries: refused outright. The overlay text comes from the catalog, never the model.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { gate } from '../compute-host/evolution/gates.ts'
import type { Reflection } from '../compute-host/evolution/reflection.ts'
import type { ClaimedSignal } from '../compute-host/evolution/types.ts'
import { OVERLAY_CATALOG } from '../runtime/evolution/catalog.ts'
import { ProposalRefused } from '../runtime/evolution/errors.ts'
import { createSecretRedactor } from '../runtime/redaction.ts'

const SECRET = 'sk-gate-test-0123456789abcdef'
const redactor = createSecretRedactor([SECRET])
const redact = (t: string) => redactor.redact(t)
const on = { evolve: true, skillCreation: true, factRetention: true, review: false }

const signal = (id: string, traceIds: string[]): ClaimedSignal =>
  ({
    id,
    agentId: 'orchistrator',
    failureClass: 'task-error',
    traceIds,
    evidence: 'x',
  }) as ClaimedSignal
const batch = [signal('evs_a', ['t1']), signal('evs_b', ['t2'])]
const answer = (over: Partial<Reflection>): Reflection => ({
  strategy: 'overlay-apply',
  catalogId: 'check-before-finishing',
  factKey: null,
  fact: null,
  evidenceSignalIds: ['evs_a', 'evs_b'],
  confidence: 0.9,
  rationale: 'r',
  ...over,
})
const decide = (over: Partial<Reflection>, policy = on, signals = batch) =>
  gate('orchistrator', answer(over), signals, policy, redact)

test('an overlay with two runs of evidence becomes a change carrying the catalog’s text', () => {
  const d = decide({})
  assert.equal(d.kind, 'change')
  if (d.kind !== 'change') return
  assert.equal(d.change.target.key, 'orchistrator/check-before-finishing')
  assert.equal(d.change.after?.text, OVERLAY_CATALOG[0].text)
  assert.deepEqual(d.change.traceIds, ['t1', 't2'])
})

test('weak or foreign evidence is no action', () => {
  assert.equal(decide({ evidenceSignalIds: ['evs_other'] }).kind, 'no-action')
  assert.equal(decide({ evidenceSignalIds: [] }).kind, 'no-action')
  assert.equal(decide({ confidence: 0.5 }).kind, 'no-action')
  assert.equal(decide({ evidenceSignalIds: ['evs_a'] }).kind, 'no-action', 'one run is no pattern')
  assert.equal(decide({ catalogId: 'verify-changes' }).kind, 'no-action', 'a skill is no overlay')
  assert.equal(decide({ strategy: 'no-action' }).kind, 'no-action')
})

test('each kind of change needs its switch', () => {
  const off = { ...on, skillCreation: false, factRetention: false }
  assert.equal(
    decide({ strategy: 'skill-install', catalogId: 'verify-changes' }, off).kind,
    'no-action',
  )
  const fact = { strategy: 'retain-fact' as const, factKey: 'package-manager', fact: 'npm' }
  assert.equal(decide(fact, off).kind, 'no-action')
  assert.equal(decide(fact).kind, 'change')
})

test('a fact carrying a secret, or keyed on a protected boundary, is refused', () => {
  const fact = (factKey: string, text: string) =>
    decide({ strategy: 'retain-fact', factKey, fact: text, evidenceSignalIds: ['evs_a'] })
  assert.throws(() => fact('deploy-target', `use ${SECRET}`), ProposalRefused)
  for (const key of ['hooks.disable', 'allowed-tools', 'api-key', 'budget.limit', 'sandbox']) {
    assert.throws(() => fact(key, 'anything'), ProposalRefused, key)
  }
  assert.equal(fact('Not A Key', 'x').kind, 'no-action')
})
