/** The book number `i` of a seeded data set: titles and authors of realistic length (ASCII). */
export function seededBook(i: number): { title: string; author: string; year: number } {
  return { title: `The collected works, volume ${i}`, author: `Author number ${i % 997}`, year: 1800 + (i % 225) }
}
