// External scanner for the `.rules` grammar: error recovery that respects lines.
//
// A `.rules` statement is one line, but tree-sitter's error recovery may skip a newline
// and go on with the tokens of the next line, so that a broken line swallows the line
// after it. Two tokens prevent that:
//
// - `_newline`, the newline that ends a statement. Each one flips a bit of scanner state.
//   When a lookahead token changes the scanner state and the parser can recover by going
//   back to a state that accepts it, tree-sitter does not also try skipping it; so a
//   newline is skipped only when nothing before it on the stack could end there.
// - `_line_in_error`, used by no grammar rule and so valid only during error recovery.
//   When the parser, recovering, lexes at the start of a line (it has skipped the newline
//   before it), the whole line is returned as this one token, which no state accepts: the
//   tokens of that line can never continue the statement of the line before.
//
// Elsewhere the built-in lexer recovers token by token as usual, and valid input never
// produces `_line_in_error`.

#include "tree_sitter/parser.h"

#include <stdlib.h>

enum TokenType {
  NEWLINE,
  LINE_IN_ERROR,
};

typedef struct {
  // Flipped by every newline, so that each newline changes the scanner state.
  bool parity;
} Scanner;

void *tree_sitter_rules_external_scanner_create(void) {
  return calloc(1, sizeof(Scanner));
}

void tree_sitter_rules_external_scanner_destroy(void *payload) { free(payload); }

unsigned tree_sitter_rules_external_scanner_serialize(void *payload, char *buffer) {
  Scanner *scanner = (Scanner *)payload;
  buffer[0] = (char)scanner->parity;
  return 1;
}

void tree_sitter_rules_external_scanner_deserialize(void *payload, const char *buffer,
                                                    unsigned length) {
  Scanner *scanner = (Scanner *)payload;
  scanner->parity = length > 0 && buffer[0] != 0;
}

// Space other than the newline, as the grammar's extras (Unicode White_Space and U+FEFF).
static bool is_space(int32_t c) {
  switch (c) {
    case '\t':
    case 0x0B:
    case 0x0C:
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
    case 0xFEFF:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

bool tree_sitter_rules_external_scanner_scan(void *payload, TSLexer *lexer,
                                             const bool *valid_symbols) {
  Scanner *scanner = (Scanner *)payload;
  bool line_start = valid_symbols[LINE_IN_ERROR] && lexer->get_column(lexer) == 0;
  while (!lexer->eof(lexer) && is_space(lexer->lookahead)) {
    lexer->advance(lexer, true);
  }
  if (lexer->eof(lexer)) {
    return false;
  }
  if (lexer->lookahead == '\n') {
    if (!valid_symbols[NEWLINE]) {
      return false;
    }
    lexer->advance(lexer, false);
    scanner->parity = !scanner->parity;
    lexer->result_symbol = NEWLINE;
    return true;
  }
  // A comment stays a comment.
  if (!line_start || lexer->lookahead == '#') {
    return false;
  }
  while (!lexer->eof(lexer) && lexer->lookahead != '\n') {
    lexer->advance(lexer, false);
  }
  lexer->result_symbol = LINE_IN_ERROR;
  return true;
}
