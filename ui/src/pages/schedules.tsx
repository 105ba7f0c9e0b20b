/** Placeholder until this page is built (in progress this session). */
export default function Page() {
  return <p>This page is being built.</p>
}
