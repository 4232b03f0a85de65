import { useState } from 'preact/hooks'
import { BookServiceError, type ApiToken } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { strings } from '../../strings/index.js'
import { Dialog } from '../../ui/dialog.js'
import { errorMessage } from '../../ui/error-message.js'

/** Props of {@link RevokeApiToken}. */
export interface RevokeApiTokenProps {
  token: ApiToken
  onClose: () => void
  /** Revoked (or already gone: the list is read again either way). */
  onRevoked: () => void
}

/**
 * The confirmation of a revocation (`DELETE /tokens/{id}`): says what it does, then revokes. A
 * token revoked meanwhile (404) counts as revoked; any other refusal is shown in the dialog.
 */
export function RevokeApiToken({ token, onClose, onRevoked }: RevokeApiTokenProps) {
  const { client } = useUi()
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState<string>()
  const labels = strings.apiTokens

  async function revoke() {
    setBusy(true)
    setMessage(undefined)
    try {
      await client.revokeApiToken(token.id)
      onRevoked()
    } catch (error) {
      setBusy(false)
      if (error instanceof BookServiceError && error.status === 404) onRevoked()
      else if (!(error instanceof BookServiceError && error.status === 401)) setMessage(errorMessage(error))
    }
  }

  return (
    <Dialog
      title={labels.revokeOf(token.name)}
      onClose={onClose}
      footer={
        <>
          <button type="button" class="danger" disabled={busy} onClick={() => void revoke()}>
            {busy ? strings.saving : labels.revoke}
          </button>
          <button type="button" onClick={onClose} disabled={busy}>
            {strings.cancel}
          </button>
        </>
      }
    >
      <p>{labels.confirmRevoke(token.name)}</p>
      {message && (
        <p class="form-error" role="alert">
          {message}
        </p>
      )}
    </Dialog>
  )
}
