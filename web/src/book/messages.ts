import { strings } from '../strings/index.js'
import type { BookField, RuleFailure } from './rules.js'

/** The message for a field that breaks a rule, as shown next to the field and in import reports. */
export function failureMessage(field: BookField, failure: RuleFailure): string {
  const name = strings.form.fields[field]
  switch (failure.rule) {
    case 'required':
      return strings.form.required(name)
    case 'type':
      return failure.expected === 'integer' ? strings.form.notInteger(name) : strings.form.notText(name)
    case 'blank':
      return strings.form.blank(name)
    case 'maxLength':
      return strings.form.tooLong(name, failure.limit)
    case 'range':
      return strings.form.range(name, failure.minimum, failure.maximum)
  }
}
