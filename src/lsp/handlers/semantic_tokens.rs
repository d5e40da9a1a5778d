//! `textDocument/semanticTokens/full`: `ide::semantic_tokens` in LSP's relative encoding
//! (each token's line and start relative to the previous one, lengths in the negotiated
//! position units). Every token lies on one line, as the encoding needs.

use crate::ide::{TokenClass, semantic_tokens};
use crate::lsp::state::Snapshot;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

/// The index of a class in the legend (`capabilities::TOKEN_TYPES`).
fn type_index(class: TokenClass) -> u32 {
    match class {
        TokenClass::Keyword => 0,
        TokenClass::Label => 1,
        TokenClass::Pattern => 2,
        TokenClass::Corpus => 3,
        TokenClass::Word | TokenClass::String => 4,
        TokenClass::Wildcard => 5,
        TokenClass::Quantifier | TokenClass::Operator => 6,
        TokenClass::Comment => 7,
        TokenClass::WordList => 8,
    }
}

pub fn full(
    snapshot: &Snapshot,
    params: SemanticTokensParams,
) -> Result<Option<SemanticTokensResult>> {
    let Some(view) = snapshot.rules(params.text_document.uri.as_str()) else {
        return Ok(None);
    };
    let text = view.text();
    let mut data = Vec::new();
    let (mut line, mut start) = (0u32, 0u32);
    for token in semantic_tokens(&view.file) {
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
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    })))
}
