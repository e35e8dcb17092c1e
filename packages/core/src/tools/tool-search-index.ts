/** A document to rank: a tool's name, title and description. */
export interface SearchableTool {
  name: string;
  title?: string;
  description: string;
}

const K1 = 1.2;
const B = 0.75;
/** Field weights: a hit in the name says more than one deep in a description. */
const WEIGHTS = { name: 3, title: 2, description: 1 } as const;

/**
 * BM25F ranking over tool names, titles and descriptions (Robertson & Zaragoza, "The
 * Probabilistic Relevance Framework: BM25 and Beyond", 2009), with field weights 3/2/1.
 * Names are split on `_`, `-`, `.`, `/` and camelCase, so `getWeatherForecast` matches
 * "weather forecast"; words are stemmed lightly (plurals, "-ing", "-ed", and "-ion", "-ize",
 * "-ary" so that "validation of" meets "Validates").
 */
export class ToolSearchIndex {
  readonly #documents: { tool: SearchableTool; terms: Map<string, number>; length: number }[];
  readonly #documentFrequency = new Map<string, number>();
  readonly #averageLength: number;

  constructor(tools: readonly SearchableTool[]) {
    this.#documents = tools.map((tool) => {
      const terms = new Map<string, number>();
      let length = 0;
      for (const [field, weight] of Object.entries(WEIGHTS) as [keyof typeof WEIGHTS, number][]) {
        for (const term of tokenize(tool[field] ?? '')) {
          terms.set(term, (terms.get(term) ?? 0) + weight);
          length += weight;
        }
      }
      for (const term of terms.keys()) {
        this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
      }
      return { tool, terms, length };
    });
    const total = this.#documents.reduce((sum, document) => sum + document.length, 0);
    this.#averageLength = this.#documents.length === 0 ? 1 : total / this.#documents.length || 1;
  }

  /** The best `limit` tools for `query`, best first; tools with no matching term are left out. */
  search(query: string, limit: number): SearchableTool[] {
    const queryTerms = [...new Set(tokenize(query))];
    const count = this.#documents.length;
    const scored: { tool: SearchableTool; score: number; order: number }[] = [];
    this.#documents.forEach((document, order) => {
      let score = 0;
      for (const term of queryTerms) {
        const frequency = document.terms.get(term);
        if (frequency === undefined) continue;
        const documents = this.#documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (count - documents + 0.5) / (documents + 0.5));
        score +=
          (idf * frequency * (K1 + 1)) /
          (frequency + K1 * (1 - B + (B * document.length) / this.#averageLength));
      }
      if (score > 0) scored.push({ tool: document.tool, score, order });
    });
    scored.sort((a, b) => b.score - a.score || a.order - b.order);
    return scored.slice(0, Math.max(0, limit)).map((entry) => entry.tool);
  }
}

const STOP_WORDS = new Set(
  'a an and are as at be by for from in is it of on or that the this to with me my i can you tool tools'.split(
    ' ',
  ),
);

/** Lowercased terms: words split on punctuation and camelCase, stop words dropped, light stemming. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
    .map(stem);
}

function stem(word: string): string {
  const inflected = stripSuffix(word);
  // "tagging", "tagged" → "tagg" → "tag" (not "ll", "ss", "zz": "calling" → "call").
  const base =
    inflected !== word &&
    /([b-df-hj-km-np-rtv-z])\1$/.test(inflected) &&
    !/(ll|ss|zz)$/.test(inflected)
      ? inflected.slice(0, -1)
      : inflected;
  // Words ending in "e" lose it before "-ing"/"-ed" ("create" → "creating", "created"), and
  // "databases" → "database" must meet "database": drop a final "e" so all forms share a stem.
  return stripDerivation(base.length > 4 && base.endsWith('e') ? base.slice(0, -1) : base);
}

/**
 * A few derivational suffixes, so that a noun meets its verb: "validation" → "validat" (as
 * "validates"), "connection" → "connect", "summarization" and "summary" → "summar" (as
 * "summarizes"). Applied to both documents and queries, so an over-eager cut only merges words.
 */
function stripDerivation(word: string): string {
  if (word.length > 9 && /(iz|is)ation$/.test(word)) return word.slice(0, -7);
  if (word.length > 6 && /[ts]ion$/.test(word)) return word.slice(0, -3);
  if (word.length > 6 && word.endsWith('iz')) return word.slice(0, -2);
  if (word.length > 6 && word.endsWith('ary')) return word.slice(0, -1);
  return word;
}

function stripSuffix(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  // "-es" is a plural suffix only after sibilants ("boxes", "matches", "addresses"); in
  // "databases" or "responses" only the "s" is.
  if (word.length > 4 && /(sh|ch|x|z|ss)es$/.test(word)) return word.slice(0, -2);
  // Not "status", "ss" words ("address") either.
  if (word.length > 3 && word.endsWith('s') && !/(ss|us)$/.test(word)) return word.slice(0, -1);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  return word;
}
