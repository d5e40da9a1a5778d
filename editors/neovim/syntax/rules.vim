" Regex highlighting of rulelens `.rules` files, for buffers without tree-sitter
" highlighting (ftplugin/rules.lua starts that when the `rules` parser is installed).
" Groups follow the tree-sitter queries in queries/rules/highlights.scm.

if exists('b:current_syntax')
  finish
endif
" Tree-sitter highlights this buffer: define nothing.
if get(b:, 'rulelens_treesitter', 0)
  finish
endif

let s:name = '[A-Za-z_][A-Za-z0-9_.-]*'

" A regex or formula, after `:`, `<-` or `=`.
syn match rulesWildcard /[$%&]/
syn match rulesQuantifier /[*+?]/
syn match rulesCount /{\s*\d\+\s*\%(,\s*\d\+\s*\)\=}/
syn match rulesOperator /[|!]/
syn match rulesBracket /[()]/
exe 'syn match rulesWordList /@' . s:name . '/'
syn region rulesQuoted start=/"/ skip=/\\[\\"]/ end=/"/ oneline contains=rulesEscape
syn match rulesEscape /\\[\\"]/ contained

" Statements, by how the line starts. A label may be spelled like a keyword
" (`default: $*`).
exe 'syn match rulesLabel /^\s*\zs' . s:name . '\ze\s*\%(:\|<-\)/ nextgroup=rulesAssign skipwhite'
syn match rulesAssign /:\|<-/ contained
exe 'syn match rulesKeyword /^\s*\zs\%(default\|corpus\|pattern\|words\)\ze\s\+[A-Za-z_]/'
      \ . ' nextgroup=rulesDefaultLabel,rulesCorpusName,rulesPatternName,rulesWordListName skipwhite'
exe 'syn match rulesDefaultLabel /\%(^\s*default\s\+\)\@<=' . s:name . '/ contained'
exe 'syn match rulesCorpusName /\%(^\s*corpus\s\+\)\@<=' . s:name . '/ contained'
      \ . ' nextgroup=rulesPath skipwhite'
exe 'syn match rulesPatternName /\%(^\s*pattern\s\+\)\@<=' . s:name . '/ contained'
      \ . ' nextgroup=rulesDefine skipwhite'
syn match rulesDefine /=/ contained
exe 'syn match rulesWordListName /\%(^\s*words\s\+\)\@<=' . s:name . '/ contained'
      \ . ' nextgroup=rulesDefine,rulesFrom skipwhite'
syn match rulesFrom /from/ contained nextgroup=rulesPath skipwhite
syn region rulesPath start=/"/ skip=/\\[\\"]/ end=/"/ oneline contained contains=rulesEscape

" Last, so that it wins: `#` outside a quoted literal starts a comment.
syn match rulesComment /#.*$/ contains=@Spell

hi def link rulesComment Comment
hi def link rulesKeyword Keyword
hi def link rulesLabel Type
hi def link rulesDefaultLabel Type
hi def link rulesCorpusName Identifier
hi def link rulesPatternName Function
hi def link rulesWordListName Constant
hi def link rulesWordList Constant
hi def link rulesFrom Keyword
hi def link rulesPath Special
hi def link rulesQuoted String
hi def link rulesEscape SpecialChar
hi def link rulesWildcard Special
hi def link rulesQuantifier Operator
hi def link rulesCount Number
hi def link rulesOperator Operator
hi def link rulesAssign Operator
hi def link rulesDefine Operator
hi def link rulesBracket Delimiter

let b:current_syntax = 'rules'
