import { render } from 'solid-js/web'
import { App } from './app.tsx'
import { takeKeyFromFragment } from './auth.ts'
import './styles.css'

// Before the hash router reads the address: a `#key=` fragment is not a route.
takeKeyFromFragment()
// A sign-in link pasted into an open tab loads no page, only a hashchange. This listener comes
// before the router's (render below), so the router reads the cleaned address, the start page. A
// new key starts the app again: the pages, or the key prompt, were refused without it.
window.addEventListener('hashchange', () => {
  if (takeKeyFromFragment()) location.reload()
})
render(() => <App />, document.getElementById('root')!)
