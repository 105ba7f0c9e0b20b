import { createAsync, HashRouter, Route, type RouteSectionProps } from '@solidjs/router'
import { Show, type JSX } from 'solid-js'
import { ChatProvider } from './chat/chat-context.tsx'
import { KeyPrompt } from './components/key-prompt.tsx'
import { lazyPage } from './components/lazy-page.tsx'
import { NavMenu } from './components/nav-menu.tsx'
import { AuthProvider, useAuth } from './auth-provider.tsx'
import { createPageTitle } from './page-title.ts'
import NotFound from './pages/not-found.tsx'
import { getModels } from './queries/models.ts'

const Chat = lazyPage(() => import('./pages/chat.tsx'))
const Tasks = lazyPage(() => import('./pages/tasks.tsx'))
const TaskDetail = lazyPage(() => import('./pages/task-detail.tsx'))
const Schedules = lazyPage(() => import('./pages/schedules.tsx'))
const Agents = lazyPage(() => import('./pages/agents.tsx'))
const Settings = lazyPage(() => import('./pages/settings.tsx'))
const Workspaces = lazyPage(() => import('./pages/workspaces.tsx'))
const Docs = lazyPage(() => import('./pages/docs.tsx'))
const Memories = lazyPage(() => import('./pages/memories.tsx'))
const Hooks = lazyPage(() => import('./pages/hooks.tsx'))
const Channels = lazyPage(() => import('./pages/channels.tsx'))
const Secrets = lazyPage(() => import('./pages/secrets.tsx'))
const Observability = lazyPage(() => import('./pages/observability.tsx'))
const Autonomy = lazyPage(() => import('./pages/autonomy.tsx'))
const Browser = lazyPage(() => import('./pages/browser.tsx'))
// One chunk for both observability pages: each chunk is compressed alone (the size budget).
const Trace = lazyPage(() =>
  import('./pages/observability.tsx').then((m) => ({ default: m.TracePage })),
)

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
  createPageTitle(() => auth.prompt() === 'none')
  return (
    <div class="shell">
      <NavMenu />
      <Show when={auth.prompt() === 'none'} fallback={<KeyPrompt reason={auth.prompt()} />}>
        <main class="page">{props.children}</main>
      </Show>
    </div>
  )
}

/**
 * Hash routes: the edge serves one index.html, and links keep working after a reload. Each
 * route's `info.title` names the browser tab (page-title.ts).
 */
export function App() {
  return (
    <HashRouter root={Layout}>
      <Route
        path={['/', '/sessions/:id']}
        component={Chat}
        info={{ title: 'Chat', session: true }}
      />
      <Route path="/tasks" component={Tasks} info={{ title: 'Tasks' }} />
      <Route path="/tasks/:id" component={TaskDetail} info={{ title: 'Task' }} />
      <Route path="/schedules" component={Schedules} info={{ title: 'Schedules' }} />
      <Route path="/agents" component={Agents} info={{ title: 'Agents' }} />
      <Route path="/agents/:id" component={Agents} info={{ title: 'Agents' }} />
      <Route path="/settings" component={Settings} info={{ title: 'Settings' }} />
      <Route path="/workspaces" component={Workspaces} info={{ title: 'Workspaces' }} />
      <Route path="/workspaces/:id" component={Workspaces} info={{ title: 'Workspaces' }} />
      <Route
        path={['/docs', '/docs/:workspaceId', '/docs/:workspaceId/:docId']}
        component={Docs}
        info={{ title: 'Docs' }}
      />
      <Route
        path={['/memories', '/memories/:id']}
        component={Memories}
        info={{ title: 'Memories' }}
      />
      <Route path="/hooks" component={Hooks} info={{ title: 'Hooks' }} />
      <Route path="/channels" component={Channels} info={{ title: 'Channels' }} />
      <Route path="/secrets" component={Secrets} info={{ title: 'Secrets' }} />
      <Route path="/observability" component={Observability} info={{ title: 'Observability' }} />
      <Route path="/autonomy" component={Autonomy} info={{ title: 'Autonomy' }} />
      <Route path="/browser" component={Browser} info={{ title: 'Browser' }} />
      <Route path="/observability/traces/:id" component={Trace} info={{ title: 'Trace' }} />
      <Route path="*" component={NotFound} info={{ title: 'Not found' }} />
    </HashRouter>
  )
}
