import type { Book } from '../../book/schema.js'

/**
 * An `Idempotency-Key` on `POST /book` (docs/contract.md "Hardening"), as the stores keep it:
 * one row of `idempotency_keys` (migration 0005) per subject and key, written in the same
 * transaction as the book it created, so a book and its key are stored together or not at all.
 */
export interface IdempotencyClaim {
  /** The token's `sub` claim as JSON text (`null` when absent): keys are scoped to it. */
  subject: string
  /** The `Idempotency-Key` header's value. */
  key: string
  /** The SHA-256 (hex) of the book the body described: a retry must describe the same book. */
  fingerprint: string
  /** When this request arrived: ISO 8601 UTC (the row's `created_at` when it creates the book). */
  now: string
  /** Rows created before this (ISO 8601 UTC) have expired: they are replaced, never replayed. */
  expiredBefore: string
}

/**
 * What a create with an {@link IdempotencyClaim} gave:
 * - `created`: the book was stored with the key (status 201);
 * - `replayed`: the key was used before with the same fingerprint: its first answer, nothing stored;
 * - `reused`: the key was used before with another fingerprint: nothing stored (422);
 * - `inProgress`: another request with the key is being stored right now (409).
 */
export type IdempotentCreate =
  | { outcome: 'created'; status: number; book: Book }
  | { outcome: 'replayed'; status: number; book: Book }
  | { outcome: 'reused' }
  | { outcome: 'inProgress' }

/** How long a key's first answer is kept and replayed: 24 h, in milliseconds (docs/contract.md "Hardening"). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
