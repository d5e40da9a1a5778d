//! `textDocument/completion`: keywords, labels, pattern names in formulas and corpus words
//! inside regexes, ranked by frequency (`ide::completions`, with the train corpus' word
//! table of the last save).

use crate::ide::{CompletionKind as IdeKind, WordFrequencies, completions};
use crate::lsp::state::Snapshot;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

fn kind(kind: IdeKind) -> CompletionItemKind {
    match kind {
        IdeKind::Keyword => CompletionItemKind::KEYWORD,
        IdeKind::Label => CompletionItemKind::ENUM_MEMBER,
        IdeKind::Pattern => CompletionItemKind::FUNCTION,
        IdeKind::WordList => CompletionItemKind::VARIABLE,
        IdeKind::Word => CompletionItemKind::TEXT,
        IdeKind::Wildcard => CompletionItemKind::OPERATOR,
    }
}

pub fn complete(
    snapshot: &Snapshot,
    params: CompletionParams,
) -> Result<Option<CompletionResponse>> {
    let uri = params.text_document_position.text_document.uri;
    let Some(view) = snapshot.rules(uri.as_str()) else {
        return Ok(None);
    };
    let text = view.text();
    let offset = text.offset(params.text_document_position.position);
    let empty;
    let words = match &view.project.saved {
        Some(saved) => saved.words.as_ref(),
        None => {
            empty = WordFrequencies::from_texts([]);
            &empty
        }
    };
    let items = completions(&view.file, offset, words)
        .into_iter()
        .map(|completion| CompletionItem {
            label: completion.label,
            kind: Some(kind(completion.kind)),
            detail: completion.detail,
            sort_text: Some(format!("{:08}", completion.rank)),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                text.lsp_range(completion.replace),
                completion.insert_text,
            ))),
            ..CompletionItem::default()
        })
        .collect();
    Ok(Some(CompletionResponse::List(CompletionList {
        // Word lists are cut at the top 50: ask again as the prefix grows.
        is_incomplete: true,
        items,
    })))
}
