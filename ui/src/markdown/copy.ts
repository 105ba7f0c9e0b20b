/**
 * The copy button of a code block. `navigator.clipboard` exists only in secure contexts (https,
 * localhost); popagent is also opened over plain http on a LAN address, where the older
 * select-and-copy command still works. The button says what happened for a moment.
 */

const SHOWN_MS = 1500

export function copyButton(text: string): HTMLButtonElement {
  const button = document.createElement('button')
  button.type = 'button'
  button.className = 'md-copy'
  button.textContent = 'Copy'
  button.setAttribute('aria-label', 'Copy code')
  let reset: ReturnType<typeof setTimeout> | undefined
  button.addEventListener('click', async () => {
    const copied = await copyText(text, button)
    button.textContent = copied ? 'Copied' : 'Copy failed'
    clearTimeout(reset)
    reset = setTimeout(() => (button.textContent = 'Copy'), SHOWN_MS)
  })
  return button
}

export async function copyText(text: string, near: HTMLElement): Promise<boolean> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text)
      return true
    } catch {
      // Refused (permissions, focus): try the older way below.
    }
  }
  const area = document.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.className = 'md-copy-buffer'
  near.after(area)
  area.select()
  let copied = false
  try {
    copied = document.execCommand('copy')
  } catch {
    copied = false
  }
  area.remove()
  near.focus()
  return copied
}
