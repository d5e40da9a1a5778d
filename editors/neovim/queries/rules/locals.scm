; Pattern names and word lists: one file is one scope; formulas refer to the patterns, and regexes to the word lists, defined in it.

(source_file) @local.scope

(pattern_definition
  name: (pattern_name) @local.definition)

(pattern_name) @local.reference

; Word lists: defined by `words NAME …`, used in regexes as `@NAME`.
(words_definition
  name: (word_list_name) @local.definition)

(word_list_reference
  name: (word_list_name) @local.reference)
