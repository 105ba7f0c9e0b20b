import { render } from 'solid-js/web'
import { App } from './app.tsx'
import { takeKeyFromFragment } from './auth.ts'
import './styles.css'

// Before the hash router reads the address: a `#key=` fragment is not a route.
takeKeyFromFragment()
render(() => <App />, document.getElementById('root')!)
