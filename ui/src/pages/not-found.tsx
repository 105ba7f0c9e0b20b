import { A, useLocation } from '@solidjs/router'

/** Any address no route answers: says so under the navigation, where it was a blank page. */
export default function NotFound() {
  const location = useLocation()
  return (
    <section class="stack">
      <h1>Page not found</h1>
      <p>
        popagent has no page at <code>{location.pathname}</code>.
      </p>
      <p>
        <A href="/">Go to the chat</A>
      </p>
    </section>
  )
}
