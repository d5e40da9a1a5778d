// Checks the grammar against the real parser's error fixtures, line by line.
//
// tests/data/syntax/err/*.rules end with `# expect: CODE ROW:COL` lines, the diagnostics
// rulelens reports. E01xx codes are syntax errors. Each line of each fixture is parsed on
// its own (a statement is one line), and:
// - a line with E0101..E0108 (unexpected character, bad string, expected statement,
//   unexpected token, unclosed group, unmatched parenthesis, missing operand) must give
//   an ERROR or MISSING node;
// - a line with an ERROR or MISSING node must have some E01xx diagnostic.
// E0109 (invalid repetition) and E0110 (nesting too deep) may go either way: `x{1,}` is
// a syntax error for both parsers, but `x{3,1}`, `x{5000}` and nesting limits are checks
// this grammar leaves to rulelens.
//
// Usage (from grammars/tree-sitter-rules): node test/fixtures.mjs [path/to/tree-sitter]

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const treeSitter = process.argv[2] ?? 'tree-sitter';
const here = dirname(fileURLToPath(import.meta.url));
const errDir = join(here, '..', '..', '..', 'tests', 'data', 'syntax', 'err');

const dir = mkdtempSync(join(tmpdir(), 'rules-fixtures-'));
try {
  const lines = [];
  for (const name of readdirSync(errDir).filter((n) => n.endsWith('.rules')).sort()) {
    const text = readFileSync(join(errDir, name), 'latin1');
    const codes = new Map();
    for (const [, code, row] of text.matchAll(/^# expect: (E01\d\d) (\d+):\d+/gm)) {
      codes.set(Number(row), [...(codes.get(Number(row)) ?? []), code]);
    }
    text.split('\n').forEach((line, i) => {
      if (line.startsWith('# expect:')) return;
      const path = join(dir, `${basename(name, '.rules')}.${i + 1}.rules`);
      // Bytes as they are: invalid_utf8.rules has bytes that are not UTF-8.
      writeFileSync(path, Buffer.from(`${line}\n`, 'latin1'));
      lines.push({ path, where: `${name}:${i + 1}`, line, codes: codes.get(i + 1) ?? [] });
    });
  }

  let output = '';
  try {
    execFileSync(treeSitter, ['parse', '--quiet', ...lines.map((l) => l.path)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (error) {
    if (error.status !== 1) throw error;
    output = error.stdout;
  }
  const broken = new Set(output.split('\n').map((l) => l.split('\t')[0].trim()).filter(Boolean));

  const failures = [];
  let syntaxErrors = 0;
  for (const { path, where, line, codes } of lines) {
    const hasError = broken.has(path);
    const required = codes.some((c) => c >= 'E0101' && c <= 'E0108');
    if (hasError) syntaxErrors += 1;
    if (required && !hasError) failures.push(`${where}: ${codes.join(', ')} but no ERROR: ${line}`);
    if (hasError && codes.length === 0) failures.push(`${where}: ERROR but no E01xx diagnostic: ${line}`);
  }
  if (failures.length > 0) {
    console.error(failures.join('\n'));
    process.exit(1);
  }
  console.log(`err fixtures: ${lines.length} lines, ${syntaxErrors} syntax errors, as rulelens reports them`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
