/** Joins class names, skipping empty ones. */
export function classNames(...names: (string | false | undefined)[]): string {
  return names.filter((name) => typeof name === 'string' && name !== '').join(' ');
}
