const VOCABULARY =
  'the quick brown fox jumps over a lazy dog while seven agents stream tokens into a page'.split(
    ' ',
  );
const texts = new Map<number, string>();

/**
 * The scripted model's answer for `text:N`: N words separated by single spaces (cached per N).
 * The model server streams it one word (with its trailing space) per delta.
 */
export function benchText(count: number): string {
  let text = texts.get(count);
  if (text === undefined) {
    const list: string[] = [];
    for (let index = 0; index < count; index += 1) {
      list.push(VOCABULARY[index % VOCABULARY.length] as string);
    }
    text = list.join(' ');
    texts.set(count, text);
  }
  return text;
}
