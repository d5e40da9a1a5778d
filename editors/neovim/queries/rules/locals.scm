; Pattern names: one file is one scope, and a formula refers to the patterns defined in it.

(source_file) @local.scope

(pattern_definition
  name: (pattern_name) @local.definition)

(pattern_name) @local.reference
