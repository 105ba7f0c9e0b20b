/**
 * The UI's one form pattern without a browser: a form compares its values with a baseline and
 * reports only what changed, so every page sends a patch of the edited fields.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createForm } from '../ui/src/forms/create-form.ts'

const agent = () => ({
  displayName: 'Reviewer',
  instructions: 'Review the diff.',
  delegationEligible: true,
  tools: ['read_file', 'grep'],
  modelOverride: '',
})

describe('createForm', () => {
  test('a fresh form has nothing changed', () => {
    const form = createForm(agent())
    assert.deepEqual(form.changed(), {})
    assert.deepEqual(form.changedKeys(), [])
    assert.equal(form.values.displayName, 'Reviewer')
  })

  test('changed() holds only the edited fields, with their new values', () => {
    const form = createForm(agent())
    form.set('displayName', 'Strict reviewer')
    form.set('delegationEligible', false)
    assert.deepEqual(form.changed(), { displayName: 'Strict reviewer', delegationEligible: false })
    assert.deepEqual(form.changedKeys(), ['displayName', 'delegationEligible'])
  })

  test('a field edited back to its saved value is not a change', () => {
    const form = createForm(agent())
    form.set('instructions', 'Something else')
    form.set('instructions', 'Review the diff.')
    assert.deepEqual(form.changed(), {})
  })

  test('a list compares by its items, so a reordered or shortened list is a change', () => {
    const form = createForm(agent())
    form.set('tools', ['read_file', 'grep'])
    assert.deepEqual(form.changed(), {}, 'the same items in a new array')
    form.set('tools', ['grep', 'read_file'])
    assert.deepEqual(form.changed(), { tools: ['grep', 'read_file'] })
    form.set('tools', ['grep'])
    assert.deepEqual(form.changed(), { tools: ['grep'] })
  })

  test('editing never changes the record the form started from, nor what changed() returned', () => {
    const record = agent()
    const form = createForm(record)
    form.set('tools', [...form.values.tools, 'edit_file'])
    const patch = form.changed()
    form.set('tools', ['only'])
    assert.deepEqual(record.tools, ['read_file', 'grep'])
    assert.deepEqual(patch.tools, ['read_file', 'grep', 'edit_file'])
  })

  test('reset() takes the saved record as the new baseline and shows its values', () => {
    const form = createForm(agent())
    form.set('displayName', 'Strict reviewer')
    form.reset({ ...agent(), displayName: 'Strict reviewer', modelOverride: 'titan/local' })
    assert.deepEqual(form.changed(), {})
    assert.equal(form.values.modelOverride, 'titan/local')
    form.set('displayName', 'Reviewer')
    assert.deepEqual(form.changed(), { displayName: 'Reviewer' })
  })
})
