// Checks that error recovery keeps to lines: a broken line never swallows a statement of
// another line, and no statement spans two lines.
//
// For every ordered pair of broken lines (b1, b2) it writes `v1 \n b1 \n b2 \n v2` (v1 and
// v2 valid statements, taken in turn from VALID), parses all the files with one
// `tree-sitter parse` run, and checks that v1 and v2 are statements of the expected kind
// on their own rows, that every other node at the top of the tree starts and ends on one
// row, and that no ERROR reaches row 0 or row 3. Two adjacent broken lines may share one
// ERROR (tree-sitter prefers one recovery to two when it can insert a MISSING token at
// the end of the first, as in `spam <- ( p & p`); their count is printed.
//
// Usage (from grammars/tree-sitter-rules): node test/lines.mjs [path/to/tree-sitter]

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const treeSitter = process.argv[2] ?? 'tree-sitter';

const VALID = [
  ['default ham', 'default_statement'],
  ['corpus train "train.tsv"', 'corpus_statement'],
  ['pattern p = $* ( a | b ) $*', 'pattern_definition'],
  ['spam: $* won $*', 'label_rule'],
  ['spam <- p & !q', 'label_formula'],
  ['default: $*', 'label_rule'],
  ['x <- y', 'label_formula'],
];

// Lines the real parser rejects (tests/data/syntax/err and more).
const BROKEN = [
  'x y z',
  'pattern = $* a $*',
  'pattern p $* a $*',
  'pattern p',
  'pattern',
  'default',
  'default ham spam',
  'corpus train',
  'corpus "train.tsv"',
  'corpus',
  '123: a',
  '@@@ $*',
  'spam',
  'spam :',
  'spam <-',
  'spam:',
  'pattern p =',
  'spam: * won $*',
  'spam: $* won | | win $*',
  'spam: $* ( ) $*',
  'spam: $* won ) $*',
  'spam: $* | $*',
  'spam: $* won } $*',
  'spam: $* ( won | win $*',
  'spam: $* "won $*',
  'spam: $* "" $*',
  'spam: $* "\\!" $*',
  'corpus train "train.tsv',
  'spam <- &',
  'spam <- a & | b',
  'spam <- ( p & p',
  'spam <- p @ p',
  'spam <- p ~~ & p',
  'spam <- p q',
  'spam <- p $',
  'spam & p',
  'spam: $* won{ $*',
  'spam: $* won{1,} $*',
  'spam: $* won{a} $*',
  'spam: $* won{2 $*',
  ': x',
  '<- x',
  '= x',
  ') x',
  '"x"',
  '| a',
  '$*',
  '! p',
];

const dir = mkdtempSync(join(tmpdir(), 'rules-lines-'));
try {
  const cases = [];
  let n = 0;
  for (const b1 of BROKEN) {
    for (const b2 of BROKEN) {
      const v1 = VALID[n % VALID.length];
      const v2 = VALID[(n + 3) % VALID.length];
      const path = join(dir, `case${n}.rules`);
      writeFileSync(path, [v1[0], b1, b2, v2[0], ''].join('\n'));
      cases.push({ path, lines: [v1[0], b1, b2, v2[0]], expect: { 0: v1, 3: v2 } });
      n += 1;
    }
  }

  let output;
  try {
    output = execFileSync(treeSitter, ['parse', ...cases.map((c) => c.path)], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (error) {
    // `tree-sitter parse` exits with 1 when a file has errors, as all of these do.
    if (error.status !== 1) throw error;
    output = error.stdout;
  }
  const trees = output.split(/^(?=\(source_file )/m).filter((t) => t.startsWith('(source_file '));
  if (trees.length !== cases.length) {
    throw new Error(`expected ${cases.length} trees, got ${trees.length}`);
  }

  const failures = [];
  let merged = 0;
  trees.forEach((tree, i) => {
    const { lines, expect } = cases[i];
    const top = [...tree.matchAll(/^  \((\w+) \[(\d+), (\d+)\] - \[(\d+), (\d+)\]/gm)].map((m) => ({
      kind: m[1],
      start: [Number(m[2]), Number(m[3])],
      end: [Number(m[4]), Number(m[5])],
    }));
    const problems = [];
    for (const node of top) {
      if (node.start[0] === node.end[0]) continue;
      if (node.kind === 'ERROR' && node.start[0] >= 1 && node.end[0] <= 2) {
        merged += 1;
      } else {
        problems.push(`${node.kind} spans rows ${node.start[0]}-${node.end[0]}`);
      }
    }
    for (const [row, [text, kind]] of Object.entries(expect)) {
      const found = top.find(
        (node) =>
          node.kind === kind &&
          node.start[0] === Number(row) &&
          node.start[1] === 0 &&
          node.end[0] === Number(row) &&
          node.end[1] === Buffer.byteLength(text),
      );
      if (!found) problems.push(`row ${row} \`${text}\` is not a ${kind}`);
    }
    if (problems.length > 0) {
      failures.push(`${lines.map((l) => `  | ${l}`).join('\n')}\n  ${problems.join('\n  ')}\n${tree}`);
    }
  });

  if (failures.length > 0) {
    console.error(failures.slice(0, Number(process.env.SHOW ?? 5)).join('\n'));
    console.error(`${failures.length} of ${cases.length} files break a line boundary`);
    process.exit(1);
  }
  console.log(
    `line recovery: ${cases.length} files, every statement on its own line ` +
      `(${merged} with the two broken lines in one ERROR)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
