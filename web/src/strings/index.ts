import { en, type Strings } from './en.js'

/** The page's texts: English. A translation is another file of the same shape, chosen here. */
export const strings: Strings = en
