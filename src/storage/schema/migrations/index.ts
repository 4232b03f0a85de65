import { createBooks } from './0001_create_books.js'
import { versionsAndListIndexes } from './0002_versions_and_list_indexes.js'
import { accounts } from './0003_accounts.js'
import { bookChangeLog } from './0004_book_change_log.js'
import { idempotencyKeys } from './0005_idempotency_keys.js'
import { loginAttempts } from './0006_login_attempts.js'
import { changeLogNumbering } from './0007_change_log_numbering.js'
import { changeHistory } from './0008_change_history.js'
import { searchIndex } from './0009_search_index.js'
import { webhooks } from './0010_webhooks.js'
import { replaysAndUsernameSkeletons } from './0011_replays_and_username_skeletons.js'
import { apiTokens } from './0012_api_tokens.js'
import { rankedSearch } from './0013_ranked_search.js'
import { deliveryLogIndexes } from './0014_delivery_log_indexes.js'
import { titleWordStarts } from './0015_title_word_starts.js'
import { titleWordStartKeysRows } from './0016_title_word_start_keys_rows.js'
import type { MigrationOf } from './migration.js'

/**
 * The one migration history of both engines, in order (names sort in application order), each
 * in the file of its name. A migration is never edited once released: add a new one instead,
 * with its mark (migration.ts), and list it here.
 */
export const MIGRATIONS: Readonly<Record<string, MigrationOf>> = {
  '0001_create_books': createBooks,
  '0002_versions_and_list_indexes': versionsAndListIndexes,
  '0003_accounts': accounts,
  '0004_book_change_log': bookChangeLog,
  '0005_idempotency_keys': idempotencyKeys,
  '0006_login_attempts': loginAttempts,
  '0007_change_log_numbering': changeLogNumbering,
  '0008_change_history': changeHistory,
  '0009_search_index': searchIndex,
  '0010_webhooks': webhooks,
  '0011_replays_and_username_skeletons': replaysAndUsernameSkeletons,
  '0012_api_tokens': apiTokens,
  '0013_ranked_search': rankedSearch,
  '0014_delivery_log_indexes': deliveryLogIndexes,
  '0015_title_word_starts': titleWordStarts,
  '0016_title_word_start_keys_rows': titleWordStartKeysRows
}
