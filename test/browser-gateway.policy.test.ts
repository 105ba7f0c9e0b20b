/**
 * The browser role policy (runtime/browser/policy.ts) by itself: what each role may call, decided
 * by popagent from names and arguments, never from a server's hints.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  decideBrowserCall,
  featureSupport,
  navigationUrlRefusal,
  NO_OPT_INS,
} from '../runtime/browser/policy.ts'

const code = (d: ReturnType<typeof decideBrowserCall>) => (d.allowed ? 'allowed' : d.code)

test('an operation popagent does not know is refused for every role, whatever the server hints', () => {
  assert.equal(
    code(decideBrowserCall('browser_teleport', {}, 'interactive')),
    'BROWSER_OPERATION_UNKNOWN',
  )
  assert.equal(
    code(decideBrowserCall('browser_teleport', {}, 'read-only')),
    'BROWSER_OPERATION_UNKNOWN',
  )
})

test('a read-only role reads and navigates but never acts on the page or reads credentials', () => {
  for (const op of [
    'browser_snapshot',
    'browser_take_screenshot',
    'browser_navigate',
    'browser_wait_for',
  ]) {
    assert.equal(code(decideBrowserCall(op, {}, 'read-only')), 'allowed', op)
  }
  for (const op of [
    'browser_click',
    'browser_type',
    'browser_fill_form',
    'browser_evaluate',
    'browser_close',
  ]) {
    assert.equal(code(decideBrowserCall(op, {}, 'read-only')), 'BROWSER_ROLE_DENIED', op)
  }
  // Playwright marks these readOnlyHint: true; they read the owner's credentials.
  for (const op of ['browser_cookie_list', 'browser_storage_state', 'browser_localstorage_get']) {
    assert.notEqual(code(decideBrowserCall(op, {}, 'read-only')), 'allowed', op)
  }
  assert.equal(code(decideBrowserCall('browser_tabs', { action: 'list' }, 'read-only')), 'allowed')
  assert.equal(
    code(decideBrowserCall('browser_tabs', { action: 'new' }, 'read-only')),
    'BROWSER_ROLE_DENIED',
  )
})

test('interactive roles act, but script, credential readers and uploads wait for the owner', () => {
  assert.equal(code(decideBrowserCall('browser_click', { target: 'e1' }, 'interactive')), 'allowed')
  assert.equal(
    code(decideBrowserCall('browser_evaluate', {}, 'interactive')),
    'BROWSER_OPT_IN_REQUIRED',
  )
  assert.equal(
    code(decideBrowserCall('browser_cookie_get', {}, 'interactive')),
    'BROWSER_OPT_IN_REQUIRED',
  )
  const optIns = {
    allowScriptEvaluation: true,
    allowCredentialReaders: true,
    uploadFolder: '/srv/uploads',
  }
  assert.equal(code(decideBrowserCall('browser_evaluate', {}, 'interactive', optIns)), 'allowed')
  assert.equal(code(decideBrowserCall('browser_cookie_get', {}, 'interactive', optIns)), 'allowed')
  const upload = (paths: unknown, o = optIns) =>
    code(decideBrowserCall('browser_file_upload', { paths }, 'interactive', o))
  assert.equal(upload(['/srv/uploads/a.pdf']), 'allowed')
  assert.equal(upload(['/srv/uploads/../etc/passwd']), 'BROWSER_OPT_IN_REQUIRED')
  assert.equal(upload(['/srv/uploadsX/a.pdf']), 'BROWSER_OPT_IN_REQUIRED')
  assert.equal(upload(['/srv/uploads/a.pdf'], NO_OPT_INS), 'BROWSER_OPT_IN_REQUIRED')
})

test('filename and host-only operations are refused to every role', () => {
  assert.equal(
    code(decideBrowserCall('browser_take_screenshot', { filename: '/etc/x.png' }, 'interactive')),
    'BROWSER_ARGUMENT_DENIED',
  )
  for (const op of ['browser_start_video', 'browser_get_config', 'browser_install']) {
    assert.equal(code(decideBrowserCall(op, {}, 'interactive')), 'BROWSER_HOST_ONLY', op)
  }
})

test('only http and https pages are opened', () => {
  assert.equal(navigationUrlRefusal('browser_navigate', { url: 'https://example.com/' }), undefined)
  assert.match(
    navigationUrlRefusal('browser_navigate', { url: 'file:///etc/passwd' }) ?? '',
    /file:/,
  )
  assert.match(
    navigationUrlRefusal('browser_tabs', { action: 'new', url: 'javascript:1' }) ?? '',
    /javascript:/,
  )
})

test('features name the operations a server lacks', () => {
  const support = featureSupport(['browser_take_screenshot', 'browser_tabs'])
  assert.deepEqual(support.screenshot, [])
  assert.deepEqual(support.video, ['browser_start_video', 'browser_stop_video'])
  assert.deepEqual(support.screencast, ['browser_screencast'])
})
