import { A, createAsync, HashRouter, Route, type RouteSectionProps } from '@solidjs/router'
import { lazy, Show, type JSX } from 'solid-js'
import { ChatProvider } from './chat/chat-context.tsx'
import { KeyPrompt } from './components/key-prompt.tsx'
import { AuthProvider, useAuth } from './auth-provider.tsx'
import { getModels } from './queries/models.ts'

const Chat = lazy(() => import('./pages/chat.tsx'))
const Tasks = lazy(() => import('./pages/tasks.tsx'))
const TaskDetail = lazy(() => import('./pages/task-detail.tsx'))
const Schedules = lazy(() => import('./pages/schedules.tsx'))
const Agents = lazy(() => import('./pages/agents.tsx'))
const Settings = lazy(() => import('./pages/settings.tsx'))
const Workspaces = lazy(() => import('./pages/workspaces.tsx'))
const Docs = lazy(() => import('./pages/docs.tsx'))
const Memories = lazy(() => import('./pages/memories.tsx'))
const Hooks = lazy(() => import('./pages/hooks.tsx'))
const Secrets = lazy(() => import('./pages/secrets.tsx'))
const Observability = lazy(() => import('./pages/observability.tsx'))
// One chunk for both observability pages: each chunk is compressed alone (the size budget).
const Trace = lazy(() =>
  import('./pages/observability.tsx').then((m) => ({ default: m.TracePage })),
)

const NAV = [
  ['/', 'Chat'],
  ['/tasks', 'Tasks'],
  ['/schedules', 'Schedules'],
  ['/agents', 'Agents'],
  ['/settings', 'Settings'],
  ['/workspaces', 'Workspaces'],
  ['/docs', 'Docs'],
  ['/memories', 'Memories'],
  ['/hooks', 'Hooks'],
  ['/secrets', 'Secrets'],
  ['/observability', 'Observability'],
] as const

function Layout(props: RouteSectionProps) {
  // The model catalog is app-wide: held here, one cached copy serves every page (a query no view
  // holds is fetched again after five seconds). refreshModels() asks the gateway again.
  createAsync(() => getModels())
  return (
    <AuthProvider>
      <ChatProvider>
        <Shell>{props.children}</Shell>
      </ChatProvider>
    </AuthProvider>
  )
}

/** The navigation, and the pages once the server accepts the key (or needs none). */
function Shell(props: { children: JSX.Element }) {
  const auth = useAuth()
  return (
    <div class="shell">
      <nav class="topnav" aria-label="Main">
        <span class="brand">popagent</span>
        {NAV.map(([href, label]) => (
          <A href={href} end={href === '/'} activeClass="active">
            {label}
          </A>
        ))}
      </nav>
      <Show when={auth.prompt() === 'none'} fallback={<KeyPrompt reason={auth.prompt()} />}>
        <main class="page">{props.children}</main>
      </Show>
    </div>
  )
}

/** Hash routes: the edge serves one index.html, and links keep working after a reload. */
export function App() {
  return (
    <HashRouter root={Layout}>
      <Route path={['/', '/sessions/:id']} component={Chat} />
      <Route path="/tasks" component={Tasks} />
      <Route path="/tasks/:id" component={TaskDetail} />
      <Route path="/schedules" component={Schedules} />
      <Route path="/agents" component={Agents} />
      <Route path="/agents/:id" component={Agents} />
      <Route path="/settings" component={Settings} />
      <Route path="/workspaces" component={Workspaces} />
      <Route path="/workspaces/:id" component={Workspaces} />
      <Route path={['/docs', '/docs/:workspaceId', '/docs/:workspaceId/:docId']} component={Docs} />
      <Route path={['/memories', '/memories/:id']} component={Memories} />
      <Route path="/hooks" component={Hooks} />
      <Route path="/secrets" component={Secrets} />
      <Route path="/observability" component={Observability} />
      <Route path="/observability/traces/:id" component={Trace} />
    </HashRouter>
  )
}
