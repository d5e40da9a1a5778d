// Tests grammars/rules.tmLanguage.json with vscode-textmate and vscode-oniguruma, the
// tokenizer and regex engine VS Code itself uses. Run with `npm test` (node:test).

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const grammarPath = join(here, '..', 'rules.tmLanguage.json');

let grammar;

before(async () => {
  const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) =>
      scopeName === 'source.rules'
        ? vsctm.parseRawGrammar(readFileSync(grammarPath, 'utf8'), grammarPath)
        : null,
  });
  grammar = await registry.loadGrammar('source.rules');
  assert.ok(grammar, 'the grammar loads');
});

/** Tokenizes a file: one array of `{ text, start, end, scopes }` per line. */
function tokenize(text) {
  let ruleStack = vsctm.INITIAL;
  return text.split(/\r?\n/).map((line) => {
    const result = grammar.tokenizeLine(line, ruleStack);
    ruleStack = result.ruleStack;
    return result.tokens.map((token) => ({
      text: line.slice(token.startIndex, token.endIndex),
      start: token.startIndex,
      end: token.endIndex,
      scopes: token.scopes,
    }));
  });
}

/** The scopes of the token at `column` of a one-line text. */
function scopesAt(line, column) {
  const token = tokenize(line)[0].find((t) => t.start <= column && column < t.end);
  assert.ok(token, `no token at column ${column} of ${JSON.stringify(line)}`);
  return token.scopes;
}

/** The scopes of the token where the `nth` occurrence of `needle` in `line` starts. */
function scopesOf(line, needle, nth = 0) {
  let column = -1;
  for (let i = 0; i <= nth; i += 1) {
    column = line.indexOf(needle, column + 1);
    assert.notEqual(column, -1, `${JSON.stringify(needle)} #${nth} not in ${JSON.stringify(line)}`);
  }
  return scopesAt(line, column);
}

/** The innermost scope of the token where `needle` starts. */
function innermost(line, needle, nth = 0) {
  return scopesOf(line, needle, nth).at(-1);
}

/**
 * The assertions written in a file as comment lines: `# ^ SCOPE` (one per caret) or
 * `# <- SCOPE` (the first column) about the nearest line above that is not an assertion,
 * `# ^ !SCOPE` for a scope the token must not have.
 */
function assertionsIn(text) {
  const lines = text.split(/\r?\n/);
  const assertions = [];
  let target = -1;
  lines.forEach((line, row) => {
    const match = /^(\s*#\s*)(\^+|<-)\s*(!?)([\w.-]+)\s*$/.exec(line);
    if (!match) {
      if (line.trim() !== '') target = row;
      return;
    }
    assert.notEqual(target, -1, `assertion on line ${row + 1} has no line above it`);
    const [, lead, arrow, negative, scope] = match;
    const columns =
      arrow === '<-' ? [line.indexOf('#')] : [...arrow].map((_, i) => lead.length + i);
    for (const column of columns) {
      assertions.push({ row: target, column, scope, negative: negative === '!', at: row + 1 });
    }
  });
  return assertions;
}

function checkAssertions(text) {
  const tokens = tokenize(text);
  const assertions = assertionsIn(text);
  for (const { row, column, scope, negative, at } of assertions) {
    const token = tokens[row].find((t) => t.start <= column && column < t.end);
    const where = `line ${at} (about line ${row + 1}, column ${column + 1})`;
    assert.ok(token, `${where}: no token there`);
    const scopes = token.scopes.join(' ');
    if (negative) {
      assert.ok(!token.scopes.includes(scope), `${where}: ${JSON.stringify(token.text)} has ${scope}: ${scopes}`);
    } else {
      assert.ok(token.scopes.includes(scope), `${where}: ${JSON.stringify(token.text)} lacks ${scope}: ${scopes}`);
    }
  }
  return assertions.length;
}

/** Valid files: every token that is not space has a scope besides `source.rules`, and none is invalid. */
function checkValidFile(path) {
  const text = readFileSync(path, 'utf8');
  tokenize(text).forEach((tokens, row) => {
    for (const token of tokens) {
      const where = `${path}:${row + 1}:${token.start + 1} ${JSON.stringify(token.text)}`;
      if (token.text.trim() !== '' && token.text !== '\uFEFF') {
        assert.ok(token.scopes.length > 1, `${where} has no scope`);
      }
      assert.ok(
        !token.scopes.some((scope) => scope.startsWith('invalid.')),
        `${where} is marked invalid: ${token.scopes.join(' ')}`,
      );
    }
  });
}

describe('the two meanings of & and |', () => {
  test('& is the logical and in a formula', () => {
    const line = 'spam <- free_call & !greeting';
    assert.equal(innermost(line, '&'), 'keyword.operator.logical.rules');
    assert.equal(innermost(line, '!'), 'keyword.operator.logical.rules');
  });

  test('& is the punctuation wildcard in a regex', () => {
    const line = 'ham: $* thats &* $? nice $*';
    assert.equal(innermost(line, '&'), 'constant.language.wildcard.rules');
    assert.equal(innermost(line, '*', 1), 'keyword.operator.quantifier.rules');
    assert.equal(innermost(line, '$', 1), 'constant.language.wildcard.rules');
    assert.equal(innermost(line, '?'), 'keyword.operator.quantifier.rules');
  });

  test('| is alternation in a regex and or in a formula', () => {
    assert.equal(innermost('spam: ( won | win )', '|'), 'keyword.operator.alternation.rules');
    assert.equal(innermost('spam <- a | b', '|'), 'keyword.operator.logical.rules');
    assert.equal(innermost('pattern p = a | b', '|'), 'keyword.operator.alternation.rules');
  });
});

describe('statements', () => {
  test('default LABEL', () => {
    const line = 'default ham';
    assert.equal(innermost(line, 'default'), 'keyword.control.default.rules');
    assert.equal(innermost(line, 'ham'), 'entity.name.type.label.rules');
  });

  test('corpus NAME "PATH"', () => {
    const line = 'corpus train "data/\\"x\\".tsv"';
    assert.equal(innermost(line, 'corpus'), 'keyword.control.corpus.rules');
    assert.equal(innermost(line, 'train'), 'variable.other.corpus.rules');
    assert.equal(innermost(line, 'data'), 'string.quoted.double.rules');
    assert.equal(innermost(line, '\\"'), 'constant.character.escape.rules');
    assert.ok(scopesOf(line, '\\"').includes('string.quoted.double.rules'));
  });

  test('pattern NAME = REGEX', () => {
    const line = 'pattern free_call = $* free $*';
    assert.equal(innermost(line, 'pattern'), 'keyword.control.pattern.rules');
    assert.equal(innermost(line, 'free_call'), 'entity.name.function.pattern.rules');
    assert.equal(innermost(line, '='), 'keyword.operator.assignment.rules');
    assert.equal(innermost(line, 'free '), 'string.unquoted.word.rules');
  });

  test('LABEL: REGEX and LABEL <- FORMULA', () => {
    assert.equal(innermost('spam: $* won $*', 'spam'), 'entity.name.type.label.rules');
    assert.equal(innermost('spam: $* won $*', ':'), 'keyword.operator.assignment.rules');
    assert.equal(innermost('spam <- p', 'spam'), 'entity.name.type.label.rules');
    assert.equal(innermost('spam <- p', '<-'), 'keyword.operator.assignment.rules');
    assert.equal(innermost('spam <- p', 'p', 1), 'variable.other.pattern.rules');
  });

  test('words NAME = … and words NAME from "PATH", used as @NAME', () => {
    const inline = 'words cities = ( paris | new york )';
    assert.equal(innermost(inline, 'words'), 'keyword.control.words.rules');
    assert.equal(innermost(inline, 'cities'), 'variable.other.constant.word-list.rules');
    assert.equal(innermost(inline, '='), 'keyword.operator.assignment.rules');
    assert.equal(innermost(inline, 'york'), 'string.unquoted.word.rules');
    const file = 'words cities from "cities.txt"';
    assert.equal(innermost(file, 'from'), 'keyword.control.from.rules');
    assert.ok(scopesOf(file, 'cities.txt').includes('string.quoted.double.rules'));
    const use = 'loc: $* from @cities $*';
    assert.equal(innermost(use, 'from'), 'string.unquoted.word.rules');
    assert.equal(innermost(use, '@cities'), 'variable.other.constant.word-list.rules');
    assert.equal(innermost('loc: $* @ $*', '@'), 'invalid.illegal.character.rules');
    assert.equal(innermost('words: $* x', 'words'), 'entity.name.type.label.rules');
  });

  test('a keyword followed by : or <- is a label', () => {
    assert.equal(innermost('default: $*', 'default'), 'entity.name.type.label.rules');
    assert.equal(innermost('pattern <- p', 'pattern'), 'entity.name.type.label.rules');
    assert.equal(innermost('corpus : x', 'corpus'), 'entity.name.type.label.rules');
    assert.equal(innermost('defaults: x', 'defaults'), 'entity.name.type.label.rules');
    assert.equal(innermost('default-x <- p', 'default-x'), 'entity.name.type.label.rules');
  });

  test('keywords are words in a regex and names in a formula', () => {
    assert.equal(innermost('spam: default', 'default'), 'string.unquoted.word.rules');
    assert.equal(innermost('spam <- corpus', 'corpus'), 'variable.other.pattern.rules');
  });

  test('comments', () => {
    assert.equal(innermost('# hello', 'hello'), 'comment.line.number-sign.rules');
    assert.equal(innermost('# hello', '#'), 'punctuation.definition.comment.rules');
    assert.equal(innermost('spam: $* # x', '# x'), 'punctuation.definition.comment.rules');
    assert.equal(innermost('spam <- p # x', 'x'), 'comment.line.number-sign.rules');
    assert.equal(innermost('spam: "#"', '#'), 'string.quoted.double.rules');
  });
});

describe('regular expressions', () => {
  test('quantifiers', () => {
    const line = 'spam: a* b+ c? d{2} e{ 0 , 3 }';
    for (const needle of ['*', '+', '?', '{', '}']) {
      assert.equal(innermost(line, needle), 'keyword.operator.quantifier.rules', needle);
    }
    assert.equal(innermost(line, '2'), 'constant.numeric.integer.rules');
    assert.ok(scopesOf(line, '2').includes('keyword.operator.quantifier.rules'));
    assert.equal(innermost(line, '3'), 'constant.numeric.integer.rules');
  });

  test('wildcards', () => {
    const line = 'spam: $ % &';
    for (const needle of ['$', '%', '&']) {
      assert.equal(innermost(line, needle), 'constant.language.wildcard.rules', needle);
    }
  });

  test('groups', () => {
    const line = 'spam: ( a )';
    assert.equal(innermost(line, '('), 'punctuation.section.group.begin.rules');
    assert.equal(innermost(line, ')'), 'punctuation.section.group.end.rules');
    const formula = 'spam <- !( a )';
    assert.equal(innermost(formula, '('), 'punctuation.section.group.begin.rules');
    assert.equal(innermost(formula, ')'), 'punctuation.section.group.end.rules');
  });

  test('words and quoted words', () => {
    const line = 'spam: can\'t e-mail 1,000 café "!" "\\\\"';
    for (const needle of ["can't", 'e-mail', '1,000', 'café']) {
      assert.equal(innermost(line, needle), 'string.unquoted.word.rules', needle);
    }
    assert.equal(innermost(line, '!'), 'string.quoted.double.rules');
    assert.equal(innermost(line, '"!"'), 'punctuation.definition.string.begin.rules');
    assert.equal(innermost(line, '\\\\'), 'constant.character.escape.rules');
  });

  test('a word ends at the special characters', () => {
    const line = 'spam: x$y%z&w*v+u?t(g)r|q"k"o#n';
    for (const needle of ['x', 'y', 'z', 'w', 'v', 'u', 't', 'r', 'q', 'o']) {
      assert.equal(innermost(line, needle), 'string.unquoted.word.rules', needle);
    }
    assert.equal(innermost(line, '$'), 'constant.language.wildcard.rules');
    assert.equal(innermost(line, '%'), 'constant.language.wildcard.rules');
    assert.equal(innermost(line, '&'), 'constant.language.wildcard.rules');
    assert.equal(innermost(line, '|'), 'keyword.operator.alternation.rules');
    assert.equal(innermost(line, 'k'), 'string.quoted.double.rules');
    assert.equal(innermost(line, 'n'), 'comment.line.number-sign.rules');
  });

  test('Unicode space separates words', () => {
    const tokens = tokenize('spam:\u3000a\u3000b\u00a0c\u2028d')[0];
    const words = tokens.filter((t) => t.scopes.includes('string.unquoted.word.rules'));
    assert.deepEqual(words.map((t) => t.text), ['a', 'b', 'c', 'd']);
  });

  test('an unknown escape is invalid', () => {
    assert.equal(innermost('spam: "\\!"', '\\'), 'invalid.illegal.escape.rules');
  });

  test('an unterminated string ends with its line', () => {
    const tokens = tokenize('spam: "won $*\nham: x');
    assert.ok(tokens[0].at(-1).scopes.includes('string.quoted.double.rules'));
    assert.equal(tokens[1][0].scopes.at(-1), 'entity.name.type.label.rules');
  });
});

describe('files', () => {
  test('sample.rules: every construct, with the assertions written in it', () => {
    const count = checkAssertions(readFileSync(join(here, 'sample.rules'), 'utf8'));
    assert.ok(count > 50, `only ${count} assertions`);
  });

  const valid = [
    join(here, 'sample.rules'),
    join(repo, 'examples', 'sms', 'sms.rules'),
    join(repo, 'examples', 'trec', 'trec.rules'),
    ...readdirSync(join(repo, 'tests', 'data', 'syntax', 'ok'))
      .filter((name) => name.endsWith('.rules'))
      .map((name) => join(repo, 'tests', 'data', 'syntax', 'ok', name)),
  ];
  for (const path of valid) {
    test(`${path.slice(repo.length + 1)}: every token scoped, none invalid`, () => {
      checkValidFile(path);
    });
  }

  test('examples/sms/sms.rules: labels, wildcards and words', () => {
    const lines = readFileSync(join(repo, 'examples', 'sms', 'sms.rules'), 'utf8').split('\n');
    const tokens = tokenize(lines.join('\n'));
    let rules = 0;
    lines.forEach((line, row) => {
      const match = /^(\w+): (.*?)\s*(#.*)?$/.exec(line);
      if (!match) return;
      rules += 1;
      assert.equal(tokens[row][0].scopes.at(-1), 'entity.name.type.label.rules', line);
      for (const token of tokens[row]) {
        if (token.start <= match[1].length || token.start >= match[1].length + 2 + match[2].length) continue;
        if (token.scopes.includes('string.quoted.double.rules')) continue;
        const inner = token.scopes.at(-1);
        if (/^[$%&]$/.test(token.text)) assert.equal(inner, 'constant.language.wildcard.rules', line);
        else if (/^[*+?]$/.test(token.text)) assert.equal(inner, 'keyword.operator.quantifier.rules', line);
        else if (token.text === '|') assert.equal(inner, 'keyword.operator.alternation.rules', line);
        else if (/^[^\s()"]+$/.test(token.text)) assert.equal(inner, 'string.unquoted.word.rules', line);
      }
    });
    assert.ok(rules > 50, `only ${rules} rules`);
  });
});
