import { dereference } from '@readme/openapi-parser'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

/**
 * What a validating proxy in front of the service checks, for the tests: every answer of an
 * operation the API document describes has a status that operation documents, and a body that
 * its schema for that status accepts (the envelope, the exact message texts, the data's shape).
 */

/** One answer as the service sent it. */
export interface Answer {
  method: string
  /** The request target (path and query), as sent. */
  url: string
  status: number
  contentType?: string
  /** The body text; empty when none. */
  body: string
}

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> }
type Document = { paths: Record<string, Record<string, Operation>> }

/** A path template as a pattern: `/book/{id}` matches `/book/` and one segment (any bytes but `/`). */
function templatePattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]*')
  return new RegExp(`^${escaped}$`)
}

/**
 * Reads `document` (the served `/openapi.json`) and returns the check of one answer.
 *
 * @returns `check(answer)`: undefined when the answer is as documented, or when no documented
 *   operation has this method and path (an unknown path's 404, a 405: answers of no operation);
 *   otherwise why it is not.
 */
export async function responseChecker(document: object): Promise<(answer: Answer) => string | undefined> {
  const resolved = (await dereference(structuredClone(document) as never)) as unknown as Document
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  const compiled = new Map<object, ValidateFunction>()
  const paths = Object.entries(resolved.paths).map(([template, operations]) => ({ template, pattern: templatePattern(template), operations }))
  return (answer) => {
    // A target with dot segments (`/book/..`, `/book/%2e%2e`) names another path (RFC 3986
    // §5.2.4); `app.inject` resolves them before routing.
    const target = answer.url.split('?')[0]!
    const path = /(^|\/)(\.|%2e){1,2}(\/|$)/i.test(target) ? new URL(target, 'http://service').pathname : target
    const method = answer.method.toLowerCase() === 'head' ? 'get' : answer.method.toLowerCase()
    const found = paths.find(({ pattern, operations }) => pattern.test(path) && operations[method] !== undefined)
    if (found === undefined) return undefined
    const where = `${answer.method} ${found.template} answered ${answer.status}`
    const response = found.operations[method]!.responses[String(answer.status)]
    if (response === undefined) return `${where}: that status is not in the document (${answer.body.slice(0, 200)})`
    if (answer.method.toUpperCase() === 'HEAD' || answer.status === 304) return answer.body === '' ? undefined : `${where}: a body where none is documented`
    const media = response.content?.['application/json']
    if (media === undefined) return `${where}: no JSON body is documented`
    if (!/^application\/json\b/.test(answer.contentType ?? '')) return `${where}: content type ${answer.contentType}`
    let validate = compiled.get(media.schema)
    if (validate === undefined) compiled.set(media.schema, (validate = ajv.compile(media.schema)))
    let body: unknown
    try {
      body = JSON.parse(answer.body)
    } catch {
      return `${where}: the body is not JSON (${answer.body.slice(0, 200)})`
    }
    return validate(body) ? undefined : `${where}: ${ajv.errorsText(validate.errors)} in ${answer.body.slice(0, 300)}`
  }
}
