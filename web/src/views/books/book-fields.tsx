import { yearBounds, type BookField } from '../../book/rules.js'
import { strings } from '../../strings/index.js'
import { Field } from '../../ui/field.js'

/** The fields as typed. */
export type Draft = Record<BookField, string>

/** Props of {@link BookFields}. */
export interface BookFieldsProps {
  draft: Draft
  /** Each field's input, so the form can focus the first invalid one. */
  inputs: Record<BookField, { current: HTMLInputElement | null }>
  /** The message to show next to `field`, if any. */
  error: (field: BookField) => string | undefined
  onInput: (field: BookField, value: string) => void
}

/** A book's `Title`, `Author` and `Year` fields, the year with the range the API takes as its hint. */
export function BookFields({ draft, inputs, error, onInput }: BookFieldsProps) {
  const { minimum, maximum } = yearBounds()
  return (
    <>
      <Field label={strings.form.fields.title} name="title" inputRef={inputs.title} value={draft.title} error={error('title')} onInput={(value) => onInput('title', value)} />
      <Field label={strings.form.fields.author} name="author" inputRef={inputs.author} value={draft.author} error={error('author')} onInput={(value) => onInput('author', value)} />
      <Field
        label={strings.form.fields.year}
        name="year"
        inputMode="numeric"
        inputRef={inputs.year}
        hint={strings.form.yearHint(minimum, maximum)}
        value={draft.year}
        error={error('year')}
        onInput={(value) => onInput('year', value)}
      />
    </>
  )
}
