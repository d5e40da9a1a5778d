; Highlights for rulelens `.rules` files.
;
; Capture names are ones that both tree-sitter's CLI and Neovim (0.7 and later) know.
; No node gets two captures, so the result does not depend on whether an editor lets the
; first or the last matching pattern win.

(comment) @comment

; Statement keywords. A label spelled like one (`default: $*`) is a (label), not a keyword.
[
  "default"
  "corpus"
  "pattern"
  "words"
  "from"
] @keyword

(label) @type

(corpus_name) @variable

(corpus_statement
  path: (string) @string.special)

; A pattern name where it is defined, and where a formula uses it. With locals.scm, a
; highlighter that resolves references gives a use of a defined pattern the highlight of
; its definition.
(pattern_definition
  name: (pattern_name) @function)

(label_formula
  formula: (pattern_name) @variable)

(not
  operand: (pattern_name) @variable)

(and
  left: (pattern_name) @variable)

(and
  right: (pattern_name) @variable)

(or
  left: (pattern_name) @variable)

(or
  right: (pattern_name) @variable)

(group
  (pattern_name) @variable)

; Word lists where they are defined and where a regex uses them (`@NAME`).
(words_definition
  name: (word_list_name) @constant)

(words_definition
  path: (string) @string.special)

(word_list_reference) @constant

; Regular expressions over tokens.
(word) @string

(quoted_word) @string

(escape_sequence) @string.escape

[
  (any_token)
  (any_number)
  (any_punctuation)
] @constant.builtin

[
  (zero_or_more)
  (one_or_more)
  (zero_or_one)
] @operator

(count) @number

(alternation
  "|" @operator)

; Formula operators: `&` and `|` here, `any_punctuation` and alternation in a regex.
(not
  "!" @operator)

(and
  "&" @operator)

(or
  "|" @operator)

[
  "="
  "<-"
  ":"
] @operator

[
  "("
  ")"
  "{"
  "}"
] @punctuation.bracket

"," @punctuation.delimiter
