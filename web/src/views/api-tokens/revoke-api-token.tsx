import { BookServiceError, type ApiToken } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { strings } from '../../strings/index.js'
import { ConfirmDialog } from '../../ui/confirm-dialog.js'

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
  const labels = strings.apiTokens
  return (
    <ConfirmDialog
      title={labels.revokeOf(token.name)}
      confirmLabel={labels.revoke}
      danger
      onClose={onClose}
      onConfirm={async () => {
        await client.revokeApiToken(token.id).catch((error: unknown) => {
          if (!(error instanceof BookServiceError && error.status === 404)) throw error
        })
        onRevoked()
      }}
    >
      <p>{labels.confirmRevoke(token.name)}</p>
    </ConfirmDialog>
  )
}
