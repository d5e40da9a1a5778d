//! `textDocument/semanticTokens/full`: `ide::semantic_tokens` in LSP's relative encoding
//! (each token's line and start relative to the previous one, lengths in the negotiated
//! position units). Every token lies on one line, as the encoding needs.

use super::rules_snapshot;
use crate::ide::{TokenClass, semantic_tokens};
use crate::lsp::server::Shared;
use tower_lsp_server::ls_types::*;

/// The token types, in legend order; [`type_index`] maps classes into it.
pub const TOKEN_TYPES: [SemanticTokenType; 7] = [
    SemanticTokenType::KEYWORD,
    SemanticTokenType::TYPE,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::NAMESPACE,
    SemanticTokenType::STRING,
    SemanticTokenType::REGEXP,
    SemanticTokenType::OPERATOR,
];

/// Comments get their own type after the others.
const COMMENT: u32 = 7;

/// The token modifiers, in legend order.
pub const TOKEN_MODIFIERS: [SemanticTokenModifier; 1] = [SemanticTokenModifier::DEFINITION];

pub fn legend() -> SemanticTokensLegend {
    let mut token_types = TOKEN_TYPES.to_vec();
    token_types.push(SemanticTokenType::COMMENT);
    SemanticTokensLegend {
        token_types,
        token_modifiers: TOKEN_MODIFIERS.to_vec(),
    }
}

fn type_index(class: TokenClass) -> u32 {
    match class {
        TokenClass::Keyword => 0,
        TokenClass::Label => 1,
        TokenClass::Pattern => 2,
        TokenClass::Corpus => 3,
        TokenClass::Word | TokenClass::String => 4,
        TokenClass::Wildcard => 5,
        TokenClass::Quantifier | TokenClass::Operator => 6,
        TokenClass::Comment => COMMENT,
    }
}

pub fn full(shared: &Shared, params: SemanticTokensParams) -> Option<SemanticTokensResult> {
    let snapshot = rules_snapshot(shared, &params.text_document.uri)?;
    let text = snapshot.text();
    let mut data = Vec::new();
    let (mut line, mut start) = (0u32, 0u32);
    for token in semantic_tokens(&snapshot.file) {
        let from = text.position(token.range.start());
        let to = text.position(token.range.end());
        if to.line != from.line || to.character <= from.character {
            continue;
        }
        let delta_line = from.line - line;
        let delta_start = if delta_line == 0 {
            from.character - start
        } else {
            from.character
        };
        data.push(SemanticToken {
            delta_line,
            delta_start,
            length: to.character - from.character,
            token_type: type_index(token.class),
            token_modifiers_bitset: u32::from(token.definition),
        });
        (line, start) = (from.line, from.character);
    }
    Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    }))
}
