import { ApiToken } from '../account/api-token-schema.js'
import { Account } from '../account/schema.js'
import { Book, BookInput } from '../book/schema.js'
import { Delivery, Webhook } from '../webhooks/schema.js'
import { HistoryEntrySchema } from './books/history.js'
import { ChangeEventData } from './books/schemas.js'

/**
 * The schemas the API document defines once under `components.schemas` and refers to by `$ref`
 * wherever an operation has them (src/http/api-document/shared-schemas.ts; docs/api.md "Programs"),
 * by the name generated clients give their types. The error envelope (`Envelope`) is added by the
 * document builder itself. Each is the schema the routes validate or serialize with.
 */
export const DOCUMENT_SCHEMAS: Record<string, object> = {
  Book,
  BookInput,
  User: Account,
  ApiToken,
  Webhook,
  Delivery,
  HistoryEntry: HistoryEntrySchema,
  ChangeEvent: ChangeEventData
}
