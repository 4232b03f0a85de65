/**
 * A form's message (why a send failed, or what to fix first), read out at once (`role="alert"`);
 * nothing when there is none.
 */
export function FormError({ message }: { message: string | undefined }) {
  if (!message) return null
  return (
    <p class="form-error" role="alert">
      {message}
    </p>
  )
}
