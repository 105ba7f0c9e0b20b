/**
 * What an agent may ask the browser to do: one decision per call, made by popagent from the
 * operation's name and arguments, never from the server's hints. Playwright's MCP server marks
 * cookie and storage readers, `storage_state` and file-writing devtools `readOnlyHint: true`, so a
 * hint would hand a read-only role the owner's credentials. Anything not named here is refused:
 * a server that grows a new operation gets it offered to nobody until it is classified.
 *
 * Applied in the gateway tool (every agent call) and in the browser routes.
 *
 * - read-only roles: operations that read what a page shows, and navigation to an http(s) URL
 *   (reading a page means loading it; the URL passes the navigation check in the host). Nothing
 *   that clicks, types, runs script, changes storage or reads credentials.
 * - interactive roles: the read-only set and everything that acts on a page, less the owner's
 *   opt-ins (script evaluation; cookie, storage and request-header readers; uploads, which only
 *   read files inside the owner's upload folder) and the host's own operations (recordings,
 *   browser installation, the server's configuration), which no agent gets.
 * - `filename` is refused on every operation: it makes the server write a file where the model
 *   says (screenshots, snapshots, PDFs, logs), and results come back inline instead.
 */
import type { BrowserAccess } from '../agents/tool-catalog.ts'

export type BrowserRole = Exclude<BrowserAccess, 'none'>

/** The owner's opt-ins, off by default (popagent_browser_settings). */
export type BrowserOptIns = {
  allowScriptEvaluation: boolean
  allowCredentialReaders: boolean
  /** Absolute folder uploads may come from; '' allows none. */
  uploadFolder: string
}

export const NO_OPT_INS: BrowserOptIns = {
  allowScriptEvaluation: false,
  allowCredentialReaders: false,
  uploadFolder: '',
}

export type BrowserOperationClass =
  'read' | 'navigate' | 'interact' | 'script' | 'credentials' | 'upload' | 'host-only'

const READ = [
  'browser_snapshot',
  'browser_take_screenshot',
  'browser_console_messages',
  'browser_network_requests',
  'browser_find',
  'browser_wait_for',
  'browser_generate_locator',
  'browser_route_list',
  'browser_verify_element_visible',
  'browser_verify_text_visible',
  'browser_verify_list_visible',
  'browser_verify_value',
] as const

const NAVIGATE = ['browser_navigate', 'browser_navigate_back'] as const

const INTERACT = [
  'browser_click',
  'browser_type',
  'browser_fill_form',
  'browser_press_key',
  'browser_hover',
  'browser_drag',
  'browser_select_option',
  'browser_handle_dialog',
  'browser_resize',
  'browser_emulate_media',
  'browser_close',
  'browser_mouse_move_xy',
  'browser_mouse_click_xy',
  'browser_mouse_drag_xy',
  'browser_mouse_down',
  'browser_mouse_up',
  'browser_mouse_wheel',
  'browser_route',
  'browser_unroute',
  'browser_network_state_set',
  'browser_highlight',
  'browser_hide_highlight',
  'browser_pdf_save',
  'browser_cookie_set',
  'browser_cookie_delete',
  'browser_cookie_clear',
  'browser_localstorage_set',
  'browser_localstorage_delete',
  'browser_localstorage_clear',
  'browser_sessionstorage_set',
  'browser_sessionstorage_delete',
  'browser_sessionstorage_clear',
] as const

const SCRIPT = ['browser_evaluate', 'browser_run_code_unsafe'] as const

const CREDENTIALS = [
  'browser_cookie_list',
  'browser_cookie_get',
  'browser_localstorage_list',
  'browser_localstorage_get',
  'browser_sessionstorage_list',
  'browser_sessionstorage_get',
  'browser_storage_state',
  // One request's detail includes its headers: cookies and authorization.
  'browser_network_request',
] as const

const UPLOAD = ['browser_file_upload', 'browser_drop'] as const

// The host's: recordings (started by popagent, stored under its data directory), installing a
// browser, loading a storage state from a file on the server, the server's configuration, and
// the debugger's pause/resume and annotation prompts (they wait for a human at the server).
const HOST_ONLY = [
  'browser_start_video',
  'browser_stop_video',
  'browser_video_chapter',
  'browser_video_show_actions',
  'browser_video_hide_actions',
  'browser_start_tracing',
  'browser_stop_tracing',
  'browser_start_recording',
  'browser_stop_recording',
  'browser_install',
  'browser_set_storage_state',
  'browser_get_config',
  'browser_resume',
  'browser_annotate',
] as const

const CLASSES = new Map<string, BrowserOperationClass>([
  ...READ.map((op) => [op, 'read'] as const),
  ...NAVIGATE.map((op) => [op, 'navigate'] as const),
  ...INTERACT.map((op) => [op, 'interact'] as const),
  ...SCRIPT.map((op) => [op, 'script'] as const),
  ...CREDENTIALS.map((op) => [op, 'credentials'] as const),
  ...UPLOAD.map((op) => [op, 'upload'] as const),
  ...HOST_ONLY.map((op) => [op, 'host-only'] as const),
])

/** The class popagent gives an operation, or undefined for one it does not know. */
export function operationClass(operation: string): BrowserOperationClass | undefined {
  // `browser_tabs` is one name for a read (list, select) and for acts (new, close).
  if (operation === 'browser_tabs') return 'interact'
  return CLASSES.get(operation)
}

export type BrowserRefusalCode =
  | 'BROWSER_OPERATION_UNKNOWN'
  | 'BROWSER_ROLE_DENIED'
  | 'BROWSER_OPT_IN_REQUIRED'
  | 'BROWSER_HOST_ONLY'
  | 'BROWSER_ARGUMENT_DENIED'

export type BrowserDecision =
  | { allowed: true; class: BrowserOperationClass; interactive: boolean }
  | { allowed: false; code: BrowserRefusalCode; reason: string }

function refuse(code: BrowserRefusalCode, reason: string): BrowserDecision {
  return { allowed: false, code, reason }
}

/**
 * Whether `role` may call `operation` with `args`. `interactive` in the answer says whether the
 * call acts on the page (a takeover refuses those; reads go on while the owner drives).
 */
export function decideBrowserCall(
  operation: string,
  args: Readonly<Record<string, unknown>>,
  role: BrowserRole,
  optIns: BrowserOptIns = NO_OPT_INS,
): BrowserDecision {
  const kind = operationClass(operation)
  if (!kind) {
    return refuse('BROWSER_OPERATION_UNKNOWN', `"${operation}" is not an operation popagent allows`)
  }
  if (Object.hasOwn(args, 'filename')) {
    return refuse(
      'BROWSER_ARGUMENT_DENIED',
      '"filename" is refused: results come back in the answer, nothing is written on the server',
    )
  }
  if (kind === 'host-only') {
    return refuse('BROWSER_HOST_ONLY', `"${operation}" is run by popagent itself, not by agents`)
  }
  if (operation === 'browser_tabs') {
    const action = args.action
    const reads = action === 'list' || action === 'select'
    if (reads) return { allowed: true, class: 'read', interactive: false }
    if (role === 'read-only') {
      return refuse('BROWSER_ROLE_DENIED', `a read-only role may only list or select tabs`)
    }
    return { allowed: true, class: 'interact', interactive: true }
  }
  if (kind === 'read') return { allowed: true, class: kind, interactive: false }
  if (kind === 'navigate') return { allowed: true, class: kind, interactive: false }
  if (role === 'read-only') {
    return refuse('BROWSER_ROLE_DENIED', `"${operation}" acts on the page; this role is read-only`)
  }
  if (kind === 'script' && !optIns.allowScriptEvaluation) {
    return refuse(
      'BROWSER_OPT_IN_REQUIRED',
      `"${operation}" runs script; the owner has not allowed it`,
    )
  }
  if (kind === 'credentials' && !optIns.allowCredentialReaders) {
    return refuse(
      'BROWSER_OPT_IN_REQUIRED',
      `"${operation}" reads cookies, storage or request headers; the owner has not allowed it`,
    )
  }
  if (kind === 'upload') {
    const refusal = uploadRefusal(args, optIns.uploadFolder)
    if (refusal) return refuse('BROWSER_OPT_IN_REQUIRED', refusal)
  }
  return { allowed: true, class: kind, interactive: true }
}

/** Uploads read files on the server: only from inside the owner's folder, named plainly. */
function uploadRefusal(
  args: Readonly<Record<string, unknown>>,
  folder: string,
): string | undefined {
  const paths = args.paths
  if (paths === undefined) return undefined // browser_drop with data only; file chooser cancel
  if (!folder) return 'uploads need an upload folder, and the owner has set none'
  if (!Array.isArray(paths)) return '"paths" must be a list of file paths'
  const root = folder.endsWith('/') ? folder : `${folder}/`
  for (const path of paths) {
    if (typeof path !== 'string' || !isPlainInside(path, root)) {
      return `upload path ${JSON.stringify(path)} is not inside the upload folder ${folder}`
    }
  }
  return undefined
}

function isPlainInside(path: string, root: string): boolean {
  if (!path.startsWith(root)) return false
  // No way back out: no `..` or `.` segment, no empty segment, no NUL.
  const rest = path.slice(root.length)
  return (
    rest.length > 0 &&
    !rest.includes('\0') &&
    rest.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')
  )
}

/** Navigation targets a page may be loaded from: http and https only (no file:, data:, …). */
export function navigationUrlRefusal(operation: string, args: Readonly<Record<string, unknown>>) {
  const url =
    operation === 'browser_navigate'
      ? args.url
      : operation === 'browser_tabs' && args.action === 'new'
        ? args.url
        : undefined
  if (url === undefined) return undefined
  if (typeof url !== 'string') return '"url" must be a string'
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return `"${url}" is not a URL`
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `only http and https pages may be opened, not ${parsed.protocol}`
  }
  return undefined
}

/** The features popagent's routes offer, each needing these operations on the server. */
export const BROWSER_FEATURES = {
  screenshot: ['browser_take_screenshot'],
  tabs: ['browser_tabs'],
  video: ['browser_start_video', 'browser_stop_video'],
  tracing: ['browser_start_tracing', 'browser_stop_tracing'],
  // Neither Playwright's server has these; a desktop server may.
  screencast: ['browser_screencast'],
  profiles: ['browser_profiles'],
} as const satisfies Record<string, readonly string[]>

export type BrowserFeature = keyof typeof BROWSER_FEATURES

/** Each feature's missing operations on a server offering `operations` (empty: supported). */
export function featureSupport(operations: readonly string[]) {
  const have = new Set(operations)
  return Object.fromEntries(
    Object.entries(BROWSER_FEATURES).map(([feature, needs]) => [
      feature,
      needs.filter((op) => !have.has(op)),
    ]),
  ) as Record<BrowserFeature, string[]>
}
