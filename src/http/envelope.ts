import Type, { type TSchema } from 'typebox'

/**
 * The response envelope (docs/contract.md "Wire"): `{ status: <HTTP status>, message: <text>,
 * data: <payload or null> }`. Every JSON answer of the service is built here: its object, its
 * text when written without Fastify's serializer, its JSON Schema and its content type.
 */

/** The content type of every envelope response (docs/contract.md "Wire"). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** One response body: the HTTP status, the exact message text, and the payload (null when none). */
export interface Envelope<T> {
  status: number
  message: string
  data: T
}

/**
 * The envelope of a response; handlers return it and the route's response schema serializes it.
 *
 * @param status the HTTP status of the response (the envelope repeats it).
 * @param message the exact message text (see `Messages` in src/http/messages.ts).
 * @param data the payload; null for errors and for successes without one.
 */
export function envelopeOf<T>(status: number, message: string, data: T): Envelope<T> {
  return { status, message, data }
}

/** The envelope of an error: `data` is always null. */
export function errorEnvelope(status: number, message: string): Envelope<null> {
  return envelopeOf(status, message, null)
}

/**
 * The text of an envelope up to its `data` value, `{"status":…,"message":…,"data":`, for a body
 * written piece by piece (the book list stream), which then writes the data and the closing `}`.
 */
export function envelopeHead(status: number, message: string): string {
  return JSON.stringify({ status, message }).slice(0, -1) + ',"data":'
}

/**
 * The JSON Schema of the envelope for one kind of response.
 *
 * @param data the JSON Schema of the `data` field for this response.
 * @returns the envelope's JSON Schema, used to serialize the response and in the API document.
 */
export function envelope<T extends TSchema>(data: T) {
  return Type.Object(
    {
      status: Type.Integer({ description: 'Equals the HTTP status code of the response.' }),
      message: Type.String({ description: 'Human-readable outcome text.' }),
      data
    },
    { additionalProperties: false }
  )
}

/** The JSON Schema of every error envelope: `data` is always null. */
export const ErrorEnvelope = envelope(Type.Null())
