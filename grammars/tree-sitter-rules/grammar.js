/**
 * @file Tree-sitter grammar for rulelens `.rules` files (docs/rules-language.md).
 *
 * Mirrors the hand-written parser in src/syntax/{lexer,parser}.rs:
 * - one statement per line; a newline ends a statement, blank lines are allowed;
 * - `#` starts a comment anywhere outside a quoted literal;
 * - `default`, `corpus`, `pattern` and `words` are keywords only at the start of a
 *   statement that is not a label rule: `default: $*`, `pattern <- p` and `default default`
 *   are valid;
 * - regexes and formulas are lexed differently (tree-sitter's context-aware lexing does
 *   what the real lexer's modes do): `&` is `any_punctuation` in a regex and `and` in a
 *   formula, `|` is `alternation` in a regex and `or` in a formula, and a regex `word` is
 *   any run of characters other than space and `$ % & * + ? ( ) { } | " #` that does not
 *   start with `@`; `@NAME` is a word list.
 */

// Space other than the newline, as `char::is_whitespace` (the Unicode White_Space
// property) without `\n`, plus the byte-order mark the real lexer also skips.
const SPACE =
  /[\t\x0B\x0C\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]/;

const PREC = {
  or: 1,
  and: 2,
  not: 3,
};

module.exports = grammar({
  name: 'rules',

  extras: $ => [$.comment, SPACE],

  // src/scanner.c: the newline that ends a statement, and a token only produced during
  // error recovery. Together they keep a broken line from running into the next one.
  externals: $ => [$._newline, $._line_in_error],

  word: $ => $.identifier,

  rules: {
    // Lines separated by newlines; each line holds at most one statement.
    source_file: $ => seq(
      optional($._statement),
      repeat(seq($._newline, optional($._statement))),
    ),

    _statement: $ => choice(
      $.default_statement,
      $.corpus_statement,
      $.pattern_definition,
      $.words_definition,
      $.label_rule,
      $.label_formula,
    ),

    // default LABEL
    default_statement: $ => seq('default', field('label', $._label)),

    // corpus NAME "PATH"
    corpus_statement: $ => seq(
      'corpus',
      field('name', alias($.identifier, $.corpus_name)),
      field('path', $.string),
    ),

    // pattern NAME = REGEX
    pattern_definition: $ => seq(
      'pattern',
      field('name', $._pattern_name),
      '=',
      field('regex', $._regex),
    ),

    // words NAME = REGEX (words and quoted tokens only; rulelens checks that), or
    // words NAME from "PATH"
    words_definition: $ => seq(
      'words',
      field('name', alias($.identifier, $.word_list_name)),
      choice(
        seq('=', field('entries', $._regex)),
        seq('from', field('path', $.string)),
      ),
    ),

    // LABEL: REGEX
    label_rule: $ => seq(
      field('label', $._statement_label),
      ':',
      field('regex', $._regex),
    ),

    // LABEL <- FORMULA
    label_formula: $ => seq(
      field('label', $._statement_label),
      '<-',
      field('formula', $._formula),
    ),

    // A label that starts a statement may be spelled like a keyword.
    _statement_label: $ => choice(
      $._label,
      alias(choice('default', 'corpus', 'pattern', 'words'), $.label),
    ),

    _label: $ => alias($.identifier, $.label),

    _pattern_name: $ => alias($.identifier, $.pattern_name),

    // Labels, pattern and corpus names; always shown under one of those names.
    identifier: _ => /[A-Za-z_][A-Za-z0-9_.\-]*/,

    // ----- regular expressions over tokens -----

    _regex: $ => choice($.alternation, $._branch),

    alternation: $ => seq($._branch, repeat1(seq('|', $._branch))),

    _branch: $ => choice($.concatenation, $._item),

    concatenation: $ => seq($._item, repeat1($._item)),

    _item: $ => choice($._atom, $.repetition),

    _atom: $ => choice(
      $.word,
      $.word_list_reference,
      alias($.string, $.quoted_word),
      alias('$', $.any_token),
      alias('%', $.any_number),
      alias('&', $.any_punctuation),
      $.group,
    ),

    group: $ => seq('(', $._regex, ')'),

    // `x?*` stacks: the inner repetition is the operand of the outer one.
    repetition: $ => seq(
      field('operand', $._item),
      field('quantifier', choice(
        alias('*', $.zero_or_more),
        alias('+', $.one_or_more),
        alias('?', $.zero_or_one),
        $.count_quantifier,
      )),
    ),

    // `{m}` (exactly m) or `{m,n}`.
    count_quantifier: $ => seq(
      '{',
      field('min', $.count),
      optional(seq(',', field('max', $.count))),
      '}',
    ),

    count: _ => /[0-9]+/,

    // `@NAME`: any entry of a word list.
    word_list_reference: $ => seq('@', field('name', alias($._word_list_name_immediate, $.word_list_name))),

    _word_list_name_immediate: _ => token.immediate(/[A-Za-z_][A-Za-z0-9_.\-]*/),

    // Ended by space (Unicode White_Space: tree-sitter's `\s` is ASCII only) and by the
    // characters that have a meaning in a regex. A byte-order mark before it is space.
    word: _ => /[^\p{White_Space}$%&*+?(){}|"#\uFEFF@][^\p{White_Space}$%&*+?(){}|"#]*/,

    // ----- formulas over pattern names -----

    _formula: $ => choice(
      $.or,
      $.and,
      $.not,
      alias($._formula_group, $.group),
      $._pattern_name,
    ),

    _formula_group: $ => seq('(', $._formula, ')'),

    or: $ => prec.left(PREC.or, seq(
      field('left', $._formula),
      '|',
      field('right', $._formula),
    )),

    and: $ => prec.left(PREC.and, seq(
      field('left', $._formula),
      '&',
      field('right', $._formula),
    )),

    not: $ => prec(PREC.not, seq('!', field('operand', $._formula))),

    // ----- lexical -----

    // A quoted literal: one token in a regex, a path in a corpus statement. It ends on
    // its line; the escapes are `\"` and `\\`; the empty literal is an error.
    string: $ => seq(
      '"',
      repeat1(choice($._string_content, $.escape_sequence)),
      '"',
    ),

    _string_content: _ => token.immediate(prec(1, /[^"\\\n]+/)),

    escape_sequence: _ => token.immediate(/\\["\\]/),

    comment: _ => token(seq('#', /[^\n]*/)),
  },
});
