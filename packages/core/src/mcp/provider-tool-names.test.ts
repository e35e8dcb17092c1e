import { describe, expect, it } from 'vitest';
import {
  isProviderSafeToolName,
  mapProviderToolNames,
  toProviderToolNames,
} from './provider-tool-names.ts';

const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

/** The mapping as original → provider name. */
function forward(map: Map<string, string>): Map<string, string> {
  return new Map([...map].map(([safe, original]) => [original, safe]));
}

function expectValid(map: Map<string, string>, originals: readonly string[]): void {
  expect(map.size).toBe(new Set(originals).size);
  for (const safe of map.keys()) expect(safe).toMatch(SAFE);
  expect(new Set(map.values())).toEqual(new Set(originals));
}

describe('mapProviderToolNames', () => {
  it('keeps safe names unchanged, in input order', () => {
    const names = ['get-sum', 'echo', 'snake_case', 'CamelCase9', 'x'.repeat(64)];
    const map = mapProviderToolNames(names);
    expect([...map]).toEqual(names.map((name) => [name, name]));
  });

  it('replaces characters outside [a-zA-Z0-9_-] with _', () => {
    const map = forward(mapProviderToolNames(['files.read', 'repo/list issues', 'café', 'a:b']));
    expect(map.get('files.read')).toBe('files_read');
    expect(map.get('repo/list issues')).toBe('repo_list_issues');
    expect(map.get('café')).toBe('caf_');
    expect(map.get('a:b')).toBe('a_b');
  });

  it('caps names over 64 characters with a stable hash suffix', () => {
    const long = `${'very_long_tool_name_'.repeat(5)}end`;
    const similar = `${'very_long_tool_name_'.repeat(5)}other`;
    const first = forward(mapProviderToolNames([long, similar]));
    const mappedLong = first.get(long) ?? '';
    const mappedSimilar = first.get(similar) ?? '';
    expect(mappedLong).toHaveLength(64);
    expect(mappedSimilar).toHaveLength(64);
    expect(mappedLong).not.toBe(mappedSimilar);
    expect(mappedLong.startsWith('very_long_tool_name_very_long_tool_name_')).toBe(true);
    expect(mappedLong).toMatch(/_[0-9a-z]{7}$/);
    // Stable: the same name maps the same way alone, with other names, and in another call.
    expect(forward(mapProviderToolNames([long])).get(long)).toBe(mappedLong);
    expect(forward(mapProviderToolNames(['echo', similar, long])).get(long)).toBe(mappedLong);
  });

  it('resolves collisions deterministically, whatever the input order', () => {
    const names = ['a.b', 'a:b', 'a b', 'c', 'a-b', 'x/y', 'x.y'];
    const reference = forward(mapProviderToolNames(names));
    expectValid(mapProviderToolNames(names), names);
    expect(new Set(reference.values()).size).toBe(names.length);
    // Unaffected names stay as they are.
    expect(reference.get('c')).toBe('c');
    expect(reference.get('a-b')).toBe('a-b');
    // Colliding names all get a hash, so none silently takes over a name another tool had.
    for (const name of ['a.b', 'a:b', 'a b'])
      expect(reference.get(name)).toMatch(/^a_b_[0-9a-z]{7}$/);

    const permutations = [
      [...names].reverse(),
      [...names].sort(),
      ['x.y', 'a b', 'c', 'a.b', 'x/y', 'a-b', 'a:b'],
    ];
    for (const order of permutations) {
      expect(forward(mapProviderToolNames(order))).toEqual(reference);
    }
  });

  it('stays order independent when a mapped name looks like another name’s hashed form', () => {
    const hashed = forward(mapProviderToolNames(['q.q', 'q:q'])).get('q.q') ?? '';
    expect(hashed).toMatch(/^q_q_[0-9a-z]{7}$/);
    // Its own safe form is exactly the hashed name 'q.q' gets.
    const lookalike = hashed.replace('q_q', 'q.q');
    const names = ['q.q', 'q:q', lookalike];
    const reference = forward(mapProviderToolNames(names));
    expectValid(mapProviderToolNames(names), names);
    expect(new Set(reference.values()).size).toBe(3);
    for (const order of [
      [...names].reverse(),
      [lookalike, 'q.q', 'q:q'],
      ['q:q', lookalike, 'q.q'],
    ]) {
      expect(forward(mapProviderToolNames(order))).toEqual(reference);
    }
  });

  it('is stable across sessions and versions (stored history keeps resolving)', () => {
    // Golden values: changing them breaks every stored thread that used these tools.
    const long = 'x'.repeat(70);
    expect([...mapProviderToolNames([long, 'a.b', 'a:b'], 'srv.')]).toEqual([
      [`srv_${'x'.repeat(52)}_1oxynpw`, long],
      ['srv_a_b_04la3gs', 'a.b'],
      ['srv_a_b_02fayps', 'a:b'],
    ]);
  });

  it('applies the prefix (made safe too) to every name', () => {
    const map = forward(mapProviderToolNames(['get-sum', 'files.read'], 'everything_'));
    expect(map.get('get-sum')).toBe('everything_get-sum');
    expect(map.get('files.read')).toBe('everything_files_read');
    const dotted = forward(mapProviderToolNames(['echo'], 'my.server/'));
    expect(dotted.get('echo')).toBe('my_server_echo');
    const long = forward(mapProviderToolNames(['t'.repeat(60)], 'prefix_'));
    expect(long.get('t'.repeat(60))).toMatch(/^prefix_t+_[0-9a-z]{7}$/);
    expect(long.get('t'.repeat(60))).toHaveLength(64);
  });

  it('always produces names matching ^[a-zA-Z0-9_-]{1,64}$, mapping back to every original', () => {
    let seed = 42;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const alphabet = 'ab_-.:/ é🙂Z9';
    const characters = [...alphabet];
    for (let round = 0; round < 30; round++) {
      const names = new Set<string>(['', ' ', '🙂', '_']);
      const count = 5 + Math.floor(random() * 20);
      while (names.size < count) {
        const length = Math.floor(random() * 90);
        let name = '';
        for (let index = 0; index < length; index++) {
          name += characters[Math.floor(random() * characters.length)];
        }
        names.add(name);
      }
      const originals = [...names];
      const prefix = round % 3 === 0 ? 'srv.' : '';
      const map = mapProviderToolNames(originals, prefix);
      expectValid(map, originals);
      const reversed = mapProviderToolNames([...originals].reverse(), prefix);
      expect(forward(reversed)).toEqual(forward(map));
    }
  });

  it('keeps the original names for calls back to the server', () => {
    const originals = ['files.read', 'get-sum', 'a'.repeat(80)];
    const map = mapProviderToolNames(originals, 'srv_');
    for (const [safe, original] of map) {
      expect(safe).toMatch(SAFE);
      expect(originals).toContain(original);
    }
    expect([...map.values()]).toEqual(originals);
  });
});

describe('toProviderToolNames', () => {
  it('gives safe, unique names their exact form by position (the prefix applied)', () => {
    expect(toProviderToolNames(['tool_001', 'echo', 'get-sum'], 'srv_')).toEqual({
      names: ['srv_tool_001', 'srv_echo', 'srv_get-sum'],
      repeated: false,
    });
  });

  // Each listing below mixes names that are safe as they are with one the general mapping must
  // change: the whole listing then goes the general way (a valid name can lose its exact form
  // there, as `a_b` does), and the result is the one mapProviderToolNames gives, by position.
  it.each([
    ['a collision with a replaced name', ['echo', 'a_b', 'a.b'], ''],
    ['invalid characters', ['echo', 'files.read'], ''],
    ['a name over 64 characters', ['echo', 'x'.repeat(65)], ''],
    ['a prefix that makes a name too long', ['echo', 't'.repeat(60)], 'prefix_'],
    ['a prefix with invalid characters', ['echo', 'add'], 'my.server/'],
  ])('falls back to the general mapping for %s', (_case, originals, prefix) => {
    const { names, repeated } = toProviderToolNames(originals, prefix);
    expect(repeated).toBe(false);
    expect(names).toEqual([...mapProviderToolNames(originals, prefix).keys()]);
    expect(names.some((name, index) => name !== prefix + (originals[index] as string))).toBe(true);
    for (const name of names) expect(name).toMatch(SAFE);
  });

  it('hashes both the valid and the replaced name of a collision', () => {
    const { names } = toProviderToolNames(['echo', 'a_b', 'a.b']);
    expect(names[0]).toBe('echo');
    expect(names[1]).toMatch(/^a_b_[0-9a-z]{7}$/);
    expect(names[2]).toMatch(/^a_b_[0-9a-z]{7}$/);
    expect(names[1]).not.toBe(names[2]);
  });

  it('gives a name listed twice one provider name at both positions, and says so', () => {
    const { names, repeated } = toProviderToolNames(['echo', 'add', 'echo']);
    expect(repeated).toBe(true);
    expect(names[1]).toBe('add');
    expect(names[0]).toMatch(/^echo_[0-9a-z]{7}$/);
    expect(names[2]).toBe(names[0]);
    expect([...mapProviderToolNames(['echo', 'add', 'echo'])]).toEqual([
      [names[0], 'echo'],
      ['add', 'add'],
    ]);
  });
});

describe('isProviderSafeToolName', () => {
  it.each([
    ['get-sum', true],
    ['a', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['', false],
    ['a.b', false],
    ['a b', false],
  ])('%j → %s', (name, expected) => {
    expect(isProviderSafeToolName(name)).toBe(expected);
  });
});
